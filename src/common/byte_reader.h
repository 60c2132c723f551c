// A bounds-checked big-endian reader over a byte span it does not own.
//
// Every read either returns the value and advances, or returns Errc::corrupt (detail: what was
// read, at which position, how many bytes were needed and how many were left) and leaves the
// position unchanged. It never reads past the end of the span. The span must outlive the reader
// and every view it hands out.
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

  Result<std::uint8_t> u8();
  Result<std::int8_t> i8();
  Result<std::uint16_t> u16();
  Result<std::int16_t> i16();
  Result<std::uint32_t> u32();
  Result<std::int32_t> i32();
  Result<std::uint64_t> u64();
  Result<std::int64_t> i64();
  // A view of the next n bytes (into the reader's span).
  Result<Bytes> bytes(std::size_t n);
  Result<std::string_view> text(std::size_t n);
  Status skip(std::size_t n);

  std::size_t position() const { return pos_; }
  std::size_t remaining() const { return data_.size() - pos_; }
  bool at_end() const { return pos_ == data_.size(); }

 private:
  // The start of the next n bytes, or an error naming `what`.
  Result<const std::uint8_t*> take(std::size_t n, const char* what);
  Bytes data_;
  std::size_t pos_ = 0;
};

}  // namespace ferry
