#include "remoting/frame_decoder.h"

#include <fmt/format.h>

#include <algorithm>

#include "common/big_endian.h"
#include "remoting/frame_codec.h"
#include "runtime/assert.h"

namespace ferry::remoting {

FrameDecoder::FrameDecoder(std::size_t frame_bytes_max, std::vector<std::int32_t> raw_requests, bool raw_replies,
                           std::size_t header_bytes_max)
    : frame_bytes_max_(frame_bytes_max),
      header_bytes_max_(header_bytes_max),
      raw_requests_(std::move(raw_requests)),
      raw_replies_(raw_replies) {
  FERRY_ASSERT(frame_bytes_max >= kFramePrefixBytes, "frame_bytes_max {} cannot hold a frame",
               frame_bytes_max);
  FERRY_ASSERT_LE(frame_bytes_max, std::size_t{0x7FFF'FFFF});
}

Error FrameDecoder::fail(Error e) {
  FERRY_ASSERT(!error_.has_value(), "decoder failed twice: {}", e.to_string());
  error_ = e;
  return e;
}

Status FrameDecoder::make_room(std::size_t n) {
  if (error_) return *error_;
  auto front = front_frame_bytes();
  if (!front) return std::move(front).error();
  if (*front && **front <= buffered_bytes()) {
    return Error(Errc::busy, "a complete frame is waiting; call next() before feeding more");
  }
  if (begin_ > 0) {  // drop consumed bytes; each byte moves at most once
    std::copy(buf_.begin() + static_cast<std::ptrdiff_t>(begin_), buf_.begin() + static_cast<std::ptrdiff_t>(end_),
              buf_.begin());
    end_ -= begin_;
    begin_ = 0;
  }
  if (buf_.size() - end_ < n) buf_.resize(end_ + n);
  return {};
}

Status FrameDecoder::feed(Bytes bytes) {
  FERRY_TRY(make_room(bytes.size()));
  std::copy(bytes.begin(), bytes.end(), buf_.begin() + static_cast<std::ptrdiff_t>(end_));
  end_ += bytes.size();
  space_offered_ = 0;
  return {};
}

Result<MutableBytes> FrameDecoder::space(std::size_t n) {
  FERRY_TRY(make_room(n));
  space_offered_ = n;
  return MutableBytes(buf_.data() + end_, n);
}

void FrameDecoder::commit(std::size_t k) {
  FERRY_ASSERT_LE(k, space_offered_);
  space_offered_ = 0;
  end_ += k;
}

Result<std::optional<std::size_t>> FrameDecoder::front_frame_bytes() {
  if (buffered_bytes() < kLengthFieldBytes) return std::optional<std::size_t>();
  const auto total_len = static_cast<std::int32_t>(load_be32(buf_.data() + begin_));
  if (auto ok = check_frame_length(total_len, frame_bytes_max_); !ok) {
    return fail(std::move(ok).error());
  }
  if (buffered_bytes() >= kFramePrefixBytes) {
    const std::uint32_t marked = load_be32(buf_.data() + begin_ + kLengthFieldBytes);
    if (auto ok = check_header_length(marked, static_cast<std::size_t>(total_len), header_bytes_max_); !ok) {
      return fail(std::move(ok).error());
    }
  }
  return std::optional<std::size_t>(kLengthFieldBytes + static_cast<std::size_t>(total_len));
}

Result<std::optional<RemotingCommand>> FrameDecoder::next() {
  if (error_) return *error_;
  auto front = front_frame_bytes();
  if (!front) return std::move(front).error();
  if (!*front || **front > buffered_bytes()) return std::optional<RemotingCommand>();

  const std::size_t frame_bytes = **front;
  const Bytes payload(buf_.data() + begin_ + kLengthFieldBytes, frame_bytes - kLengthFieldBytes);
  auto cmd = decode_frame_payload(payload, raw_requests_, raw_replies_);
  if (!cmd) return fail(std::move(cmd).error());
  begin_ += frame_bytes;
  space_offered_ = 0;
  FERRY_ASSERT_LE(begin_, end_);
  if (begin_ == end_) {  // everything consumed: reuse the buffer from the start
    begin_ = 0;
    end_ = 0;
  }
  return std::optional<RemotingCommand>(std::move(*cmd));
}

}  // namespace ferry::remoting
