#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "common/compression.h"

namespace ferry {
namespace {

TEST(Compression, RoundTrip) {
  std::string text(10000, 'x');
  for (std::size_t i = 0; i < text.size(); i += 7) text[i] = static_cast<char>('a' + i % 26);
  auto packed = zlib_compress(as_bytes(text));
  EXPECT_LT(packed.size(), text.size());
  EXPECT_EQ(packed[0], 0x78);  // a zlib (RFC 1950) header, as java.util.zip.Deflater writes
  auto back = zlib_decompress(packed, text.size());
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(as_text(*back), text);
}

TEST(Compression, OutputBoundIsEnforced) {
  std::vector<std::uint8_t> zeros(100000, 0);
  auto packed = zlib_compress(zeros);
  auto back = zlib_decompress(packed, 99999);
  ASSERT_FALSE(back.ok());
  EXPECT_EQ(back.error().code, Errc::invalid_argument);
  EXPECT_TRUE(zlib_decompress(packed, 100000).ok());
}

TEST(Compression, CorruptInput) {
  auto packed = zlib_compress(as_bytes(std::string_view("hello hello hello hello")));
  // Truncated.
  for (std::size_t n = 0; n < packed.size(); ++n) {
    auto r = zlib_decompress(Bytes(packed.data(), n), 1 << 20);
    ASSERT_FALSE(r.ok()) << n;
    EXPECT_EQ(r.error().code, Errc::corrupt) << n;
  }
  // Trailing bytes.
  auto longer = packed;
  longer.push_back(0);
  EXPECT_EQ(zlib_decompress(longer, 1 << 20).error().code, Errc::corrupt);
  // Not zlib at all.
  EXPECT_EQ(zlib_decompress(as_bytes(std::string_view("plain text body")), 1 << 20).error().code,
            Errc::corrupt);
  // Every single-byte flip is either detected or (rarely) still inflates; never a crash.
  for (std::size_t i = 0; i < packed.size(); ++i) {
    auto b = packed;
    b[i] ^= 0xFF;
    auto r = zlib_decompress(b, 1 << 20);
    if (!r.ok()) {
      EXPECT_EQ(r.error().code, Errc::corrupt) << i;
    }
  }
}

RC_GTEST_PROP(Compression, RoundTripProperty, (const std::vector<std::uint8_t>& data)) {
  auto back = zlib_decompress(zlib_compress(data), data.size());
  RC_ASSERT(back.ok());
  RC_ASSERT(*back == data);
}

RC_GTEST_PROP(Compression, ArbitraryInputNeverCrashes, (const std::vector<std::uint8_t>& data)) {
  auto r = zlib_decompress(data, 1 << 16);
  RC_ASSERT(r.ok() || r.error().code == Errc::corrupt || r.error().code == Errc::invalid_argument);
}

}  // namespace
}  // namespace ferry
