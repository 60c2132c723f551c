// A bounds-checked big-endian reader over a byte span it does not own.
//
// Every read either returns the value and advances, or returns Errc::corrupt (detail: what was
// read, at which position, how many bytes were needed and how many were left) and leaves the
// position unchanged. It never reads past the end of the span. The span must outlive the reader
// and every view it hands out.
//
// The reads are inline (the frame decoder and the record reader call them per field); only the
// error, which formats its detail, is out of line.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "common/big_endian.h"
#include "runtime/result.h"

namespace ferry {

class ByteReader {
 public:
  explicit ByteReader(Bytes data) : data_(data) {}

  Result<std::uint8_t> u8() { return integer<std::uint8_t>("u8"); }
  Result<std::int8_t> i8() { return integer<std::int8_t>("i8"); }
  Result<std::uint16_t> u16() { return integer<std::uint16_t>("u16"); }
  Result<std::int16_t> i16() { return integer<std::int16_t>("i16"); }
  Result<std::uint32_t> u32() { return integer<std::uint32_t>("u32"); }
  Result<std::int32_t> i32() { return integer<std::int32_t>("i32"); }
  Result<std::uint64_t> u64() { return integer<std::uint64_t>("u64"); }
  Result<std::int64_t> i64() { return integer<std::int64_t>("i64"); }
  // A view of the next n bytes (into the reader's span).
  Result<Bytes> bytes(std::size_t n) {
    if (n > remaining()) [[unlikely]] return truncated(n, "bytes");
    const Bytes out = data_.subspan(pos_, n);
    pos_ += n;
    return out;
  }
  Result<std::string_view> text(std::size_t n) {
    if (n > remaining()) [[unlikely]] return truncated(n, "text");
    const std::string_view out = as_text(data_.subspan(pos_, n));
    pos_ += n;
    return out;
  }
  Status skip(std::size_t n) {
    if (n > remaining()) [[unlikely]] return truncated(n, "skip");
    pos_ += n;
    return {};
  }

  std::size_t position() const { return pos_; }
  std::size_t remaining() const { return data_.size() - pos_; }
  bool at_end() const { return pos_ == data_.size(); }

 private:
  // The next sizeof(T) bytes as a big-endian T, or the error naming `what`.
  template <typename T>
  Result<T> integer(const char* what) {
    constexpr std::size_t n = sizeof(T);
    if (n > remaining()) [[unlikely]] return truncated(n, what);
    const std::uint8_t* p = data_.data() + pos_;
    pos_ += n;
    if constexpr (n == 1) {
      return static_cast<T>(*p);
    } else if constexpr (n == 2) {
      return static_cast<T>(load_be16(p));
    } else if constexpr (n == 4) {
      return static_cast<T>(load_be32(p));
    } else {
      static_assert(n == 8, "1, 2, 4 or 8 bytes");
      return static_cast<T>(load_be64(p));
    }
  }
  // "truncated: reading <what> needs <n> bytes at position <pos>, <left> left".
  Error truncated(std::size_t n, const char* what) const;

  Bytes data_;
  std::size_t pos_ = 0;
};

}  // namespace ferry
