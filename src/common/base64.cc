#include "common/base64.h"

#include <fmt/format.h>

#include <array>

namespace ferry {

namespace {

constexpr std::string_view kAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

constexpr std::array<std::int8_t, 256> make_values() {
  std::array<std::int8_t, 256> v{};
  for (auto& x : v) x = -1;
  for (std::size_t i = 0; i < kAlphabet.size(); ++i) v[static_cast<unsigned char>(kAlphabet[i])] = static_cast<std::int8_t>(i);
  return v;
}
constexpr std::array<std::int8_t, 256> kValues = make_values();

}  // namespace

std::string base64_encode(const std::vector<std::uint8_t>& bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
    std::uint32_t w = static_cast<std::uint32_t>(bytes[i]) << 16;
    if (n > 1) w |= static_cast<std::uint32_t>(bytes[i + 1]) << 8;
    if (n > 2) w |= bytes[i + 2];
    out += kAlphabet[(w >> 18) & 63];
    out += kAlphabet[(w >> 12) & 63];
    out += n > 1 ? kAlphabet[(w >> 6) & 63] : '=';
    out += n > 2 ? kAlphabet[w & 63] : '=';
  }
  return out;
}

Result<std::vector<std::uint8_t>> base64_decode(std::string_view text) {
  auto bad = [&](std::string_view what) {
    return Error(Errc::corrupt, fmt::format("base64 \"{}\": {}", text.substr(0, 64), what));
  };
  if (text.size() % 4 != 0) return bad(fmt::format("length {} is not a multiple of 4", text.size()));
  std::vector<std::uint8_t> out;
  out.reserve(text.size() / 4 * 3);
  for (std::size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    std::uint32_t w = 0;
    int pad = 0;
    for (std::size_t j = 0; j < 4; ++j) {
      const char c = text[i + j];
      if (c == '=') {
        if (!last || j < 2) return bad(fmt::format("padding at position {}", i + j));
        ++pad;
        w <<= 6;
        continue;
      }
      if (pad > 0) return bad(fmt::format("data after padding at position {}", i + j));
      const std::int8_t v = kValues[static_cast<unsigned char>(c)];
      if (v < 0) return bad(fmt::format("character {:#04x} at position {} is not base64", static_cast<unsigned char>(c), i + j));
      w = (w << 6) | static_cast<std::uint32_t>(v);
    }
    out.push_back(static_cast<std::uint8_t>(w >> 16));
    if (pad < 2) out.push_back(static_cast<std::uint8_t>(w >> 8));
    if (pad < 1) out.push_back(static_cast<std::uint8_t>(w));
  }
  return out;
}

}  // namespace ferry
