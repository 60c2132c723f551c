#include "common/md5.h"

#include <cstring>

namespace ferry {
namespace {

constexpr std::array<std::uint32_t, 64> kK = [] {
  // floor(abs(sin(i + 1)) * 2^32), precomputed (RFC 1321 section 3.4).
  return std::array<std::uint32_t, 64>{
      0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613,
      0xfd469501, 0x698098d8, 0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193,
      0xa679438e, 0x49b40821, 0xf61e2562, 0xc040b340, 0x265e5a51, 0xe9b6c7aa, 0xd62f105d,
      0x02441453, 0xd8a1e681, 0xe7d3fbc8, 0x21e1cde6, 0xc33707d6, 0xf4d50d87, 0x455a14ed,
      0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a, 0xfffa3942, 0x8771f681, 0x6d9d6122,
      0xfde5380c, 0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70, 0x289b7ec6, 0xeaa127fa,
      0xd4ef3085, 0x04881d05, 0xd9d4d039, 0xe6db99e5, 0x1fa27cf8, 0xc4ac5665, 0xf4292244,
      0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92, 0xffeff47d, 0x85845dd1,
      0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb,
      0xeb86d391};
}();

constexpr std::array<unsigned, 16> kShift = {7, 12, 17, 22, 5, 9, 14, 20,
                                             4, 11, 16, 23, 6, 10, 15, 21};

std::uint32_t rotl(std::uint32_t x, unsigned c) { return (x << c) | (x >> (32 - c)); }

std::uint32_t load_le32(const std::uint8_t* p) {
  return std::uint32_t{p[0]} | (std::uint32_t{p[1]} << 8) | (std::uint32_t{p[2]} << 16) |
         (std::uint32_t{p[3]} << 24);
}

void block(std::array<std::uint32_t, 4>& s, const std::uint8_t* p) {
  std::array<std::uint32_t, 16> m{};
  for (std::size_t i = 0; i < 16; ++i) m[i] = load_le32(p + 4 * i);
  std::uint32_t a = s[0], b = s[1], c = s[2], d = s[3];
  for (std::size_t i = 0; i < 64; ++i) {
    std::uint32_t f = 0;
    std::size_t g = 0;
    if (i < 16) {
      f = (b & c) | (~b & d);
      g = i;
    } else if (i < 32) {
      f = (d & b) | (~d & c);
      g = (5 * i + 1) % 16;
    } else if (i < 48) {
      f = b ^ c ^ d;
      g = (3 * i + 5) % 16;
    } else {
      f = c ^ (b | ~d);
      g = (7 * i) % 16;
    }
    std::uint32_t tmp = d;
    d = c;
    c = b;
    b = b + rotl(a + f + kK[i] + m[g], kShift[(i / 16) * 4 + i % 4]);
    a = tmp;
  }
  s[0] += a;
  s[1] += b;
  s[2] += c;
  s[3] += d;
}

}  // namespace

std::array<std::uint8_t, 16> md5(Bytes data) {
  std::array<std::uint32_t, 4> s = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476};
  std::size_t full = data.size() / 64;
  for (std::size_t i = 0; i < full; ++i) block(s, data.data() + 64 * i);
  // Padding: 0x80, zeros, then the bit length little-endian, to a multiple of 64 bytes.
  std::array<std::uint8_t, 128> tail{};
  std::size_t rest = data.size() - full * 64;
  if (rest > 0) std::memcpy(tail.data(), data.data() + full * 64, rest);
  tail[rest] = 0x80;
  std::size_t tail_len = rest + 1 + 8 <= 64 ? 64 : 128;
  std::uint64_t bits = static_cast<std::uint64_t>(data.size()) * 8;
  for (std::size_t i = 0; i < 8; ++i) tail[tail_len - 8 + i] = static_cast<std::uint8_t>(bits >> (8 * i));
  for (std::size_t off = 0; off < tail_len; off += 64) block(s, tail.data() + off);
  std::array<std::uint8_t, 16> out{};
  for (std::size_t i = 0; i < 4; ++i) {
    for (std::size_t j = 0; j < 4; ++j) out[4 * i + j] = static_cast<std::uint8_t>(s[i] >> (8 * j));
  }
  return out;
}

}  // namespace ferry
