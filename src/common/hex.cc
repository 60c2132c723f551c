#include "common/hex.h"

#include <fmt/format.h>

namespace ferry {
namespace {

constexpr char kDigits[] = "0123456789ABCDEF";

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

}  // namespace

void append_hex(std::string& out, Bytes bytes) {
  // One resize, then plain stores (appending a character at a time checks capacity each time).
  const std::size_t at = out.size();
  out.resize(at + bytes.size() * 2);
  char* p = out.data() + at;
  for (std::uint8_t b : bytes) {
    *p++ = kDigits[b >> 4];
    *p++ = kDigits[b & 0xf];
  }
}

std::string to_hex(Bytes bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  append_hex(out, bytes);
  return out;
}

Status parse_hex(std::string_view text, MutableBytes out) {
  if (text.size() != out.size() * 2) {
    return Error(Errc::invalid_argument, fmt::format("hex text has {} characters, expected {}",
                                                     text.size(), out.size() * 2));
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    int hi = hex_value(text[2 * i]);
    int lo = hex_value(text[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      return Error(Errc::invalid_argument,
                   fmt::format("non-hex character at position {} of '{}'", hi < 0 ? 2 * i : 2 * i + 1,
                               text.substr(0, 64)));
    }
    out[i] = static_cast<std::uint8_t>((hi << 4) | lo);
  }
  return {};
}

}  // namespace ferry
