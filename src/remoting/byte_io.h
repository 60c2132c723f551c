// Big-endian integer helpers for the frame and the binary header: an appending writer and a
// bounds-checked reader that never reads past its span (a short read reports failure instead).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>
#include <vector>

namespace ferry::remoting {

inline void put_be32_at(std::uint8_t* p, std::uint32_t v) {
  p[0] = static_cast<std::uint8_t>(v >> 24);
  p[1] = static_cast<std::uint8_t>(v >> 16);
  p[2] = static_cast<std::uint8_t>(v >> 8);
  p[3] = static_cast<std::uint8_t>(v);
}

inline std::uint32_t get_be32_at(const std::uint8_t* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
         std::uint32_t{p[3]};
}

// Appends to a caller-owned vector (whose capacity is reused across frames).
class ByteWriter {
 public:
  explicit ByteWriter(std::vector<std::uint8_t>& out) : out_(out) {}

  void u8(std::uint8_t v) { out_.push_back(v); }
  void be16(std::uint16_t v) {
    out_.push_back(static_cast<std::uint8_t>(v >> 8));
    out_.push_back(static_cast<std::uint8_t>(v));
  }
  void be32(std::uint32_t v) {
    const std::size_t at = out_.size();
    out_.resize(at + 4);
    put_be32_at(out_.data() + at, v);
  }
  void bytes(std::string_view s) { out_.insert(out_.end(), s.begin(), s.end()); }

 private:
  std::vector<std::uint8_t>& out_;
};

// Reads from a span; every read checks the remaining length first.
class ByteReader {
 public:
  explicit ByteReader(std::span<const std::uint8_t> in) : in_(in) {}

  std::size_t remaining() const { return in_.size() - pos_; }
  std::size_t position() const { return pos_; }

  bool u8(std::uint8_t& v) {
    if (remaining() < 1) return false;
    v = in_[pos_++];
    return true;
  }
  bool be16(std::uint16_t& v) {
    if (remaining() < 2) return false;
    v = static_cast<std::uint16_t>((in_[pos_] << 8) | in_[pos_ + 1]);
    pos_ += 2;
    return true;
  }
  bool be32(std::uint32_t& v) {
    if (remaining() < 4) return false;
    v = get_be32_at(in_.data() + pos_);
    pos_ += 4;
    return true;
  }
  // A view of the next `n` bytes as text (no copy), or false when fewer remain.
  bool text(std::size_t n, std::string_view& v) {
    if (remaining() < n) return false;
    v = std::string_view(reinterpret_cast<const char*>(in_.data() + pos_), n);
    pos_ += n;
    return true;
  }

 private:
  std::span<const std::uint8_t> in_;
  std::size_t pos_ = 0;
};

}  // namespace ferry::remoting
