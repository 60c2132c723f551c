// Big-endian writers.
//
//   ByteWriter  appends to a std::vector<uint8_t> the caller owns (grows it; for cold paths such
//               as a test fixture).
//   SpanWriter  writes into a fixed buffer the caller owns and sized beforehand (hot paths: compute
//               the exact length first, then write in place, as the record writer and the binary
//               remoting header do). Writing past the end is a bug in the length computation and
//               aborts with what was asked and what was left.
//
// Both write two's-complement integers in network order; signed and unsigned share the bytes.
// The integer and text writes are written once, in BigEndianWrites; each writer says only where
// the next n bytes go (take) and how it copies a run of bytes (bytes).
#pragma once

#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "common/big_endian.h"
#include "runtime/assert.h"

namespace ferry {

// The writes both writers share. `Writer` provides `std::uint8_t* take(std::size_t n)` (room for
// the next n bytes) and `void bytes(Bytes)`.
template <typename Writer>
class BigEndianWrites {
 public:
  void u8(std::uint8_t v) { *self().take(1) = v; }
  void i8(std::int8_t v) { u8(static_cast<std::uint8_t>(v)); }
  void u16(std::uint16_t v) { store_be16(self().take(2), v); }
  void i16(std::int16_t v) { u16(static_cast<std::uint16_t>(v)); }
  void u32(std::uint32_t v) { store_be32(self().take(4), v); }
  void i32(std::int32_t v) { u32(static_cast<std::uint32_t>(v)); }
  void u64(std::uint64_t v) { store_be64(self().take(8), v); }
  void i64(std::int64_t v) { u64(static_cast<std::uint64_t>(v)); }
  void text(std::string_view s) { self().bytes(as_bytes(s)); }

 private:
  Writer& self() { return static_cast<Writer&>(*this); }
};

class ByteWriter : public BigEndianWrites<ByteWriter> {
 public:
  // `out` must outlive the writer; bytes are appended after what it already holds.
  explicit ByteWriter(std::vector<std::uint8_t>& out) : out_(out) {}

  void bytes(Bytes b) { out_.insert(out_.end(), b.begin(), b.end()); }
  std::size_t size() const { return out_.size(); }

 private:
  friend class BigEndianWrites<ByteWriter>;
  std::uint8_t* take(std::size_t n) {
    out_.resize(out_.size() + n);
    return out_.data() + out_.size() - n;
  }
  std::vector<std::uint8_t>& out_;
};

class SpanWriter : public BigEndianWrites<SpanWriter> {
 public:
  // Copies up to this many bytes with a loop instead of memcpy.
  static constexpr std::size_t kInlineCopyBytes = 16;

  // `out` must outlive the writer.
  explicit SpanWriter(MutableBytes out) : out_(out) {}

  void bytes(Bytes b) {
    std::uint8_t* p = take(b.size());
    if (b.size() <= kInlineCopyBytes) {  // short keys and numbers: a library call costs more
      for (std::size_t i = 0; i < b.size(); ++i) p[i] = b[i];
    } else {
      std::memcpy(p, b.data(), b.size());
    }
  }

  std::size_t position() const { return pos_; }
  std::size_t remaining() const { return out_.size() - pos_; }

 private:
  friend class BigEndianWrites<SpanWriter>;
  std::uint8_t* take(std::size_t n) {
    FERRY_ASSERT(n <= out_.size() - pos_, "SpanWriter overflow: writing {} bytes at {} of {}", n,
                 pos_, out_.size());
    std::uint8_t* p = out_.data() + pos_;
    pos_ += n;
    return p;
  }
  MutableBytes out_;
  std::size_t pos_ = 0;
};

}  // namespace ferry
