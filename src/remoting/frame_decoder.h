// FrameDecoder: turns a byte stream (as read from one connection) into commands.
//
// Bytes may arrive in any pieces: a frame split across many reads, many frames in one read.
// The connection's reader loop is:
//
//   decoder.feed(bytes_read);                 // buffer what arrived (or, without a copy:
//                                             // read into space(n), then commit(bytes_read))
//   while (true) {
//     auto next = decoder.next();             // Result<std::optional<RemotingCommand>>
//     if (!next) { log(next.error()); close(); break; }   // bad stream: close the connection
//     if (!*next) break;                      // need more bytes
//     dispatch(std::move(**next));
//   }
//
// Bounds: the length of a frame is checked as soon as its 4 length bytes arrive, and its header's
// length (against header_bytes_max and the frame) as soon as the next 4 do, so an oversized or
// negative length fails at once, without buffering or parsing the frame. feed() refuses bytes while a
// complete frame is still waiting to be taken, so the buffer holds at most one incomplete frame
// (< frame_bytes_max) plus what one feed() brought.
//
// Errors are sticky: after next() fails, every later next() and feed() returns the same error.
// The decoder is a plain single-threaded value; it does no I/O.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "remoting/frame_format.h"
#include "remoting/remoting_command.h"
#include "runtime/bytes.h"
#include "runtime/result.h"

namespace ferry::remoting {

class FrameDecoder {
 public:
  // `raw_requests`, `raw_replies`: whose binary-header extFields stay raw (read_binary_header).
  explicit FrameDecoder(std::size_t frame_bytes_max = kFrameBytesMaxDefault, std::vector<std::int32_t> raw_requests = {},
                        bool raw_replies = false, std::size_t header_bytes_max = kHeaderBytesMaxDefault);

  // Appends `bytes` to the buffer. Errors: the sticky decode error if next() failed before;
  // Errc::busy if a complete frame is waiting (call next() until it returns nullopt first).
  Status feed(Bytes bytes);

  // feed() without the copy: room for `n` more bytes at the end of the buffer, for the caller to
  // read into; commit(k) then buffers the first k of them (k <= n). Same errors as feed(). The
  // span stays valid until the next call on the decoder; a space() not followed by a commit()
  // buffers nothing.
  Result<MutableBytes> space(std::size_t n);
  void commit(std::size_t k);

  // The next complete command, nullopt when more bytes are needed, or an error (Errc::corrupt,
  // the text names the reason: negative or oversized length, header length beyond the frame,
  // unknown serialize type, malformed JSON, truncated binary header, ...).
  Result<std::optional<RemotingCommand>> next();

  // Bytes received and not yet returned as part of a command.
  std::size_t buffered_bytes() const { return end_ - begin_; }
  bool failed() const { return error_.has_value(); }
  std::size_t frame_bytes_max() const { return frame_bytes_max_; }

 private:
  // feed()'s and space()'s checks; moves the unconsumed bytes to the front of the buffer and
  // makes room for `n` more after them.
  Status make_room(std::size_t n);
  // The size of the frame at the front of the buffer (length field included) once its length
  // bytes are here and valid (and its header length, once those 4 bytes are here too); nullopt
  // while fewer than 4 bytes are buffered.
  Result<std::optional<std::size_t>> front_frame_bytes();
  Error fail(Error e);

  std::size_t frame_bytes_max_;
  std::size_t header_bytes_max_;
  std::vector<std::int32_t> raw_requests_;
  bool raw_replies_ = false;
  // buf_[begin_, end_) is received and not yet consumed; buf_[end_, size) is room for more (the
  // vector's size is kept, not shrunk, so room is not zero-filled again on every read).
  std::vector<std::uint8_t> buf_;
  std::size_t begin_ = 0;
  std::size_t end_ = 0;
  std::size_t space_offered_ = 0;  // what the last space() offered, for commit()'s check
  std::optional<Error> error_;
};

}  // namespace ferry::remoting
