#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <charconv>
#include <limits>

#include "common/java_hash.h"
#include "tests/support/vectors.h"

namespace ferry {
namespace {

// Every line of java_string_hashcode.tsv: a JSON string literal (with \u escapes and surrogate
// pairs, parsed by rapidjson into UTF-8) and Java's hashCode of it.
TEST(JavaHash, GoldenVectors) {
  auto lines = test::read_vector_lines("java_string_hashcode.tsv");
  ASSERT_GE(lines.size(), 15u) << "java_string_hashcode.tsv is short";
  for (const std::string& line : lines) {
    auto cols = test::split_tabs(line);
    ASSERT_EQ(cols.size(), 2u) << line;
    rapidjson::Document d;
    d.Parse(cols[0].c_str(), cols[0].size());
    ASSERT_FALSE(d.HasParseError()) << cols[0];
    ASSERT_TRUE(d.IsString()) << cols[0];
    std::string_view text(d.GetString(), d.GetStringLength());
    std::int32_t want = 0;
    auto [p, ec] = std::from_chars(cols[1].data(), cols[1].data() + cols[1].size(), want);
    ASSERT_EQ(ec, std::errc()) << cols[1];
    EXPECT_EQ(java_string_hash(text), want) << cols[0];
    std::int32_t abs_want = want == std::numeric_limits<std::int32_t>::min() ? 0
                            : want < 0                                       ? -want
                                                                             : want;
    EXPECT_EQ(index_key_hash(text), abs_want) << cols[0];
  }
}

TEST(JavaHash, SurrogatePairsFromFourByteUtf8) {
  // U+1F600 = D83D DE00 in UTF-16.
  EXPECT_EQ(java_string_hash("\xF0\x9F\x98\x80"), 31 * 0xD83D + 0xDE00);
}

TEST(JavaHash, InvalidUtf8BecomesReplacementCharacters) {
  constexpr std::int32_t kFffd = 0xFFFD;
  EXPECT_EQ(java_string_hash("\xFF"), kFffd);
  EXPECT_EQ(java_string_hash("a\x80" "b"), (97 * 31 + kFffd) * 31 + 98);
  // A truncated sequence is one replacement.
  EXPECT_EQ(java_string_hash("\xE4\xB8"), kFffd);
  EXPECT_EQ(java_string_hash("\xF0\x9F\x98"), kFffd);
  EXPECT_EQ(java_string_hash("\xE4\xB8" "a"), kFffd * 31 + 97);
  // Overlong forms and encoded surrogates: every byte is its own maximal subpart.
  EXPECT_EQ(java_string_hash("\xC0\xAF"), kFffd * 31 + kFffd);
  EXPECT_EQ(java_string_hash("\xED\xA0\x80"), (kFffd * 31 + kFffd) * 31 + kFffd);
  // Above U+10FFFF.
  EXPECT_EQ(java_string_hash("\xF4\x90\x80\x80"), java_string_hash("\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD"));
}

TEST(JavaHash, IndexKeyHashOfIntMinIsZero) {
  // "polygenelubricants".hashCode() == Integer.MIN_VALUE.
  EXPECT_EQ(java_string_hash("polygenelubricants"), std::numeric_limits<std::int32_t>::min());
  EXPECT_EQ(index_key_hash("polygenelubricants"), 0);
  EXPECT_EQ(index_key_hash("BenchmarkTopic#key-000123"), 1683803135);
}

}  // namespace
}  // namespace ferry
