#include "remoting/frame_codec.h"

#include <fmt/format.h>

#include <string_view>

#include "common/big_endian.h"
#include "remoting/header_binary.h"
#include "remoting/header_json.h"
#include "runtime/assert.h"

namespace ferry::remoting {

Status encode_frame_head(const RemotingCommand& cmd, std::vector<std::uint8_t>& head,
                         std::size_t frame_bytes_max) {
  head.clear();
  head.resize(kFramePrefixBytes);  // patched below, once the header length is known
  switch (cmd.serialize_type) {
    case SerializeType::json: write_json_header(cmd, head); break;
    case SerializeType::rocketmq: write_binary_header(cmd, head); break;
  }
  const std::size_t header_bytes = head.size() - kFramePrefixBytes;
  if (header_bytes > kHeaderBytesMax) {
    return Error(Errc::invalid_argument,
                 fmt::format("header of {} bytes exceeds the {}-byte limit of the frame format",
                             header_bytes, kHeaderBytesMax));
  }
  const std::size_t body_bytes = cmd.body_size();
  const std::size_t frame_bytes = head.size() + body_bytes;
  if (frame_bytes > frame_bytes_max) {
    return Error(Errc::invalid_argument,
                 fmt::format("frame of {} bytes (header {}, body {}) exceeds the maximum {}",
                             frame_bytes, header_bytes, body_bytes, frame_bytes_max));
  }
  FERRY_ASSERT_LE(frame_bytes - kLengthFieldBytes, std::size_t{0x7FFF'FFFF});  // int32 totalLen
  const auto total_len = static_cast<std::uint32_t>(frame_bytes - kLengthFieldBytes);
  const auto marked = (static_cast<std::uint32_t>(cmd.serialize_type) << kSerializeTypeShift) |
                      static_cast<std::uint32_t>(header_bytes);
  store_be32(head.data(), total_len);
  store_be32(head.data() + kLengthFieldBytes, marked);
  return {};
}

Result<std::vector<std::uint8_t>> encode_frame(const RemotingCommand& cmd,
                                               std::size_t frame_bytes_max) {
  std::vector<std::uint8_t> frame;
  FERRY_TRY(encode_frame_head(cmd, frame, frame_bytes_max));
  frame.insert(frame.end(), cmd.body.begin(), cmd.body.end());
  for (const FileView& v : cmd.body_views) frame.insert(frame.end(), v.bytes().begin(), v.bytes().end());
  return frame;
}

Status check_frame_length(std::int32_t total_len, std::size_t frame_bytes_max) {
  if (total_len < 0) {
    return Error(Errc::corrupt, fmt::format("negative frame length {}", total_len));
  }
  const auto len = static_cast<std::size_t>(total_len);
  if (len < kMarkedHeaderLenBytes) {
    return Error(Errc::corrupt, fmt::format("frame length {} is shorter than the {}-byte "
                                            "header-length field", len, kMarkedHeaderLenBytes));
  }
  if (len + kLengthFieldBytes > frame_bytes_max) {
    return Error(Errc::corrupt, fmt::format("frame length {} exceeds the maximum frame of {} bytes",
                                            len, frame_bytes_max));
  }
  return {};
}

Status check_header_length(std::uint32_t marked_header_len, std::size_t total_len, std::size_t header_bytes_max) {
  const std::size_t header_bytes = marked_header_len & kHeaderLenMask;
  if (header_bytes > header_bytes_max) {
    return Error(Errc::corrupt, fmt::format("header of {} bytes declared, more than the {} a header may have", header_bytes,
                                            header_bytes_max));
  }
  FERRY_ASSERT_GE(total_len, kMarkedHeaderLenBytes);
  if (header_bytes > total_len - kMarkedHeaderLenBytes) {
    return Error(Errc::corrupt, fmt::format("header length {} exceeds the {} bytes of the frame "
                                            "after the header-length field", header_bytes,
                                            total_len - kMarkedHeaderLenBytes));
  }
  return {};
}

Result<RemotingCommand> decode_frame_payload(Bytes payload, std::span<const std::int32_t> raw_requests, bool raw_replies) {
  if (payload.size() < kMarkedHeaderLenBytes) {
    return Error(Errc::corrupt, fmt::format("frame of {} bytes has no header-length field",
                                            payload.size()));
  }
  const std::uint32_t marked = load_be32(payload.data());
  const std::uint32_t type = marked >> kSerializeTypeShift;
  const std::size_t header_bytes = marked & kHeaderLenMask;
  const auto rest = payload.subspan(kMarkedHeaderLenBytes);
  FERRY_TRY(check_header_length(marked, payload.size(), kHeaderBytesMax));
  const auto header = rest.first(header_bytes);
  const auto body = rest.subspan(header_bytes);

  Result<RemotingCommand> cmd = Error(Errc::corrupt, fmt::format("unknown serialize type {}", type));
  if (type == static_cast<std::uint32_t>(SerializeType::json)) {
    cmd = read_json_header(as_text(header));
  } else if (type == static_cast<std::uint32_t>(SerializeType::rocketmq)) {
    cmd = read_binary_header(header, raw_requests, raw_replies);
  }
  if (!cmd) return cmd;
  cmd->body.assign(body.begin(), body.end());
  return cmd;
}

Result<RemotingCommand> decode_frame(Bytes frame,
                                     std::size_t frame_bytes_max) {
  if (frame.size() < kLengthFieldBytes) {
    return Error(Errc::corrupt, fmt::format("{} bytes, shorter than the frame-length field",
                                            frame.size()));
  }
  const auto total_len = static_cast<std::int32_t>(load_be32(frame.data()));
  FERRY_TRY(check_frame_length(total_len, frame_bytes_max));
  const std::size_t expected = kLengthFieldBytes + static_cast<std::size_t>(total_len);
  if (frame.size() != expected) {
    return Error(Errc::corrupt, fmt::format("frame length {} says {} bytes but {} were given",
                                            total_len, expected, frame.size()));
  }
  return decode_frame_payload(frame.subspan(kLengthFieldBytes));
}

}  // namespace ferry::remoting
