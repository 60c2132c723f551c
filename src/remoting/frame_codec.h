// Writing and reading whole frames (frame_format.h has the layout). Pure functions: no I/O.
//
// Sending: encode_frame_head() builds `totalLen | markedHeaderLen | header` in a reusable buffer;
// the frame on the wire is that buffer followed by the command's body and body views, written
// with one gather write, so stored messages in a pull reply (body_views) are never copied.
//
// Receiving whole frames: decode_frame(). From a byte stream: FrameDecoder (frame_decoder.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "remoting/frame_format.h"
#include "remoting/remoting_command.h"
#include "runtime/bytes.h"
#include "runtime/result.h"

namespace ferry::remoting {

// Replaces the contents of `head` (its capacity is reused) with the frame prefix and the header
// of `cmd`, serialized as cmd.serialize_type. Errors (Errc::invalid_argument): the header is
// longer than 24 bits can say, or the whole frame (with the body) would exceed frame_bytes_max;
// `head` then holds nothing useful.
Status encode_frame_head(const RemotingCommand& cmd, std::vector<std::uint8_t>& head,
                         std::size_t frame_bytes_max = kFrameBytesMaxDefault);

// The whole frame in one new buffer (head + body). Same errors as encode_frame_head().
Result<std::vector<std::uint8_t>> encode_frame(const RemotingCommand& cmd,
                                               std::size_t frame_bytes_max = kFrameBytesMaxDefault);

// Checks a frame's totalLen field as read from the wire (a signed int32). Errors (Errc::corrupt):
// negative, shorter than the 4-byte markedHeaderLen, or a frame (4 + totalLen bytes) larger than
// frame_bytes_max.
Status check_frame_length(std::int32_t total_len, std::size_t frame_bytes_max);

// Checks a frame's markedHeaderLen (as read from the wire) against the frame's totalLen (already
// checked) and header_bytes_max. Errors (Errc::corrupt): a header longer than header_bytes_max
// or than the rest of the frame. The serialize type is checked when the header is read.
Status check_header_length(std::uint32_t marked_header_len, std::size_t total_len, std::size_t header_bytes_max);

// Decodes the `totalLen` bytes that follow the length field: markedHeaderLen, header, body.
// Errors (Errc::corrupt): fewer than 4 bytes, a header length beyond the payload, an unknown
// serialize type, or the header decoder's error (header_json.h, header_binary.h).
// `raw_requests`, `raw_replies`: whose binary-header extFields stay raw (read_binary_header).
Result<RemotingCommand> decode_frame_payload(Bytes payload, std::span<const std::int32_t> raw_requests = {},
                                             bool raw_replies = false);

// Decodes exactly one whole frame, length field included. Errors: as check_frame_length() and
// decode_frame_payload(), and Errc::corrupt when `frame` is shorter or longer than its totalLen
// says.
Result<RemotingCommand> decode_frame(Bytes frame,
                                     std::size_t frame_bytes_max = kFrameBytesMaxDefault);

}  // namespace ferry::remoting
