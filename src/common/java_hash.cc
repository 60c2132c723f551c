#include "common/java_hash.h"

#include <limits>

namespace ferry {
namespace {

constexpr std::uint32_t kReplacement = 0xFFFD;

// Decodes one code point at s[i]; advances i past it (or past the maximal ill-formed subpart,
// yielding U+FFFD). Well-formed ranges follow Unicode Table 3-7.
std::uint32_t next_code_point(std::string_view s, std::size_t& i) {
  auto byte = [&](std::size_t k) { return static_cast<std::uint8_t>(s[k]); };
  std::uint8_t b0 = byte(i);
  if (b0 < 0x80) {
    ++i;
    return b0;
  }
  std::size_t need = 0;
  std::uint32_t cp = 0;
  std::uint8_t lo = 0x80;
  std::uint8_t hi = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    need = 1;
    cp = b0 & 0x1Fu;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    need = 2;
    cp = b0 & 0x0Fu;
    if (b0 == 0xE0) lo = 0xA0;  // no overlongs
    if (b0 == 0xED) hi = 0x9F;  // no surrogates
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    need = 3;
    cp = b0 & 0x07u;
    if (b0 == 0xF0) lo = 0x90;  // no overlongs
    if (b0 == 0xF4) hi = 0x8F;  // nothing above U+10FFFF
  } else {
    ++i;  // a continuation byte or C0, C1, F5..FF: never valid here
    return kReplacement;
  }
  ++i;
  for (std::size_t k = 0; k < need; ++k) {
    if (i >= s.size()) return kReplacement;  // truncated: the prefix so far is one subpart
    std::uint8_t b = byte(i);
    std::uint8_t min = (k == 0) ? lo : 0x80;
    std::uint8_t max = (k == 0) ? hi : 0xBF;
    if (b < min || b > max) return kReplacement;  // b starts the next subpart
    cp = (cp << 6) | (b & 0x3Fu);
    ++i;
  }
  return cp;
}

}  // namespace

std::int32_t java_string_hash(std::string_view utf8) {
  std::uint32_t h = 0;
  std::size_t i = 0;
  while (i < utf8.size()) {
    std::uint32_t cp = next_code_point(utf8, i);
    if (cp >= 0x10000) {
      std::uint32_t v = cp - 0x10000;
      h = 31 * h + (0xD800 + (v >> 10));
      h = 31 * h + (0xDC00 + (v & 0x3FF));
    } else {
      h = 31 * h + cp;
    }
  }
  return static_cast<std::int32_t>(h);
}

std::int32_t index_key_hash(std::string_view key) {
  std::int32_t h = java_string_hash(key);
  if (h == std::numeric_limits<std::int32_t>::min()) return 0;
  return h < 0 ? -h : h;
}

}  // namespace ferry
