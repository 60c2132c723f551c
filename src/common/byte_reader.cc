#include "common/byte_reader.h"

#include <fmt/format.h>

namespace ferry {

Result<const std::uint8_t*> ByteReader::take(std::size_t n, const char* what) {
  if (n > remaining()) {
    return Error(Errc::corrupt, fmt::format("truncated: reading {} needs {} bytes at position {}, "
                                            "{} left",
                                            what, n, pos_, remaining()));
  }
  const std::uint8_t* p = data_.data() + pos_;
  pos_ += n;
  return p;
}

Result<std::uint8_t> ByteReader::u8() {
  auto p = take(1, "u8");
  if (!p) return std::move(p).error();
  return **p;
}
Result<std::int8_t> ByteReader::i8() {
  auto p = take(1, "i8");
  if (!p) return std::move(p).error();
  return static_cast<std::int8_t>(**p);
}
Result<std::uint16_t> ByteReader::u16() {
  auto p = take(2, "u16");
  if (!p) return std::move(p).error();
  return load_be16(*p);
}
Result<std::int16_t> ByteReader::i16() {
  auto p = take(2, "i16");
  if (!p) return std::move(p).error();
  return static_cast<std::int16_t>(load_be16(*p));
}
Result<std::uint32_t> ByteReader::u32() {
  auto p = take(4, "u32");
  if (!p) return std::move(p).error();
  return load_be32(*p);
}
Result<std::int32_t> ByteReader::i32() {
  auto p = take(4, "i32");
  if (!p) return std::move(p).error();
  return static_cast<std::int32_t>(load_be32(*p));
}
Result<std::uint64_t> ByteReader::u64() {
  auto p = take(8, "u64");
  if (!p) return std::move(p).error();
  return load_be64(*p);
}
Result<std::int64_t> ByteReader::i64() {
  auto p = take(8, "i64");
  if (!p) return std::move(p).error();
  return static_cast<std::int64_t>(load_be64(*p));
}
Result<Bytes> ByteReader::bytes(std::size_t n) {
  auto p = take(n, "bytes");
  if (!p) return std::move(p).error();
  return Bytes(*p, n);
}
Result<std::string_view> ByteReader::text(std::size_t n) {
  auto p = take(n, "text");
  if (!p) return std::move(p).error();
  return std::string_view(reinterpret_cast<const char*>(*p), n);
}
Status ByteReader::skip(std::size_t n) {
  auto p = take(n, "skip");
  if (!p) return std::move(p).error();
  return {};
}

}  // namespace ferry
