// CRC-32: the folded (PCLMULQDQ) path must agree with zlib for every length, alignment and
// starting value, and the known check values must come out.
#include "common/crc.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string_view>
#include <vector>

namespace ferry {
namespace {

Bytes as_bytes(std::string_view s) { return Bytes(reinterpret_cast<const std::uint8_t*>(s.data()), s.size()); }

std::vector<std::uint8_t> random_bytes(std::mt19937_64& rng, std::size_t n) {
  std::vector<std::uint8_t> v(n);
  for (auto& b : v) b = static_cast<std::uint8_t>(rng());
  return v;
}

TEST(Crc32, CheckValues) {
  EXPECT_EQ(crc32_update(0, {}), 0u);
  EXPECT_EQ(crc32_update(0, as_bytes("123456789")), 0xCBF43926u);  // the standard check value
  // 64 bytes and more go through the folded path where the CPU has it.
  const std::string a(100, 'a');
  EXPECT_EQ(crc32_update(0, as_bytes(a)), detail::crc32_zlib(0, as_bytes(a)));
  const std::string zeros(4096, '\0');
  EXPECT_EQ(crc32_update(0, as_bytes(zeros)), 0xC71C0011u);
  std::printf("crc32 implementation: %s\n", crc32_implementation());
}

TEST(Crc32, AgreesWithZlibForEveryLengthAndAlignment) {
  std::mt19937_64 rng(20261130);
  const std::vector<std::uint8_t> buf = random_bytes(rng, 2200);
  for (std::size_t align = 0; align < 16; align += 5) {
    for (std::size_t len = 0; len + align <= 1100; ++len) {
      const Bytes b(buf.data() + align, len);
      const auto seed = static_cast<std::uint32_t>(rng());
      ASSERT_EQ(crc32_update(seed, b), detail::crc32_zlib(seed, b)) << "len " << len << " align " << align;
      ASSERT_EQ(crc32_update(0, b), detail::crc32_zlib(0, b)) << "len " << len << " align " << align;
    }
  }
}

TEST(Crc32, LargeAndPiecewise) {
  std::mt19937_64 rng(7);
  const std::vector<std::uint8_t> buf = random_bytes(rng, 4 * 1024 * 1024 + 13);
  const Bytes all(buf.data(), buf.size());
  const std::uint32_t whole = detail::crc32_zlib(0, all);
  EXPECT_EQ(crc32_update(0, all), whole);
  // Fed in random pieces, the result is the CRC of the whole.
  for (int round = 0; round < 20; ++round) {
    std::uint32_t crc = 0;
    std::size_t at = 0;
    while (at < buf.size()) {
      const std::size_t n = std::min<std::size_t>(buf.size() - at, rng() % 70000);
      crc = crc32_update(crc, all.subspan(at, n));
      at += n;
    }
    ASSERT_EQ(crc, whole) << "round " << round;
  }
}

TEST(Crc32, BodyCrcClearsTheTopBit) {
  // Find a body whose CRC has the top bit set: body_crc must clear it and keep the rest.
  std::mt19937_64 rng(3);
  for (int i = 0; i < 64; ++i) {
    const std::vector<std::uint8_t> body = random_bytes(rng, 200);
    const std::uint32_t full = detail::crc32_zlib(0, Bytes(body));
    EXPECT_EQ(body_crc(Bytes(body)), static_cast<std::int32_t>(full & 0x7FFFFFFFu));
  }
}

}  // namespace
}  // namespace ferry
