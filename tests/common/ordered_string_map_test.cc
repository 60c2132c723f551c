// OrderedStringMap and its builder: insertion order, set() in place, and a builder that means
// what set() means on either side of its indexing threshold.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <string>
#include <vector>

#include "common/ordered_string_map.h"
#include "common/properties.h"

namespace ferry {
namespace {

std::vector<std::string> keys_of(const OrderedStringMap& m) {
  std::vector<std::string> out;
  for (const auto& [k, v] : m) out.push_back(k);
  return out;
}

TEST(OrderedStringMap, SetReplacesInPlaceAndEraseKeepsTheRestInOrder) {
  OrderedStringMap m{{"b", "1"}, {"a", "2"}, {"c", "3"}};
  m.set("a", std::string("20"));
  EXPECT_EQ(keys_of(m), (std::vector<std::string>{"b", "a", "c"}));
  EXPECT_EQ(m.get("a"), "20");
  EXPECT_EQ(*m.find("b"), "1");
  EXPECT_EQ(m.find("z"), nullptr);
  EXPECT_FALSE(m.get("z").has_value());
  EXPECT_TRUE(m.erase("b"));
  EXPECT_FALSE(m.erase("b"));
  EXPECT_EQ(keys_of(m), (std::vector<std::string>{"a", "c"}));
}

TEST(OrderedStringMap, EqualityIsOrderSensitiveSameEntriesIsNot) {
  const OrderedStringMap ab{{"a", "1"}, {"b", "2"}};
  const OrderedStringMap ba{{"b", "2"}, {"a", "1"}};
  EXPECT_NE(ab, ba);
  EXPECT_TRUE(ab.same_entries(ba));
  EXPECT_FALSE(ab.same_entries(OrderedStringMap{{"a", "1"}, {"b", "3"}}));
  EXPECT_FALSE(ab.same_entries(OrderedStringMap{{"a", "1"}}));
}

TEST(OrderedStringMapBuilder, RepeatsPastTheIndexThresholdKeepFirstPositionLastValue) {
  OrderedStringMapBuilder b;
  const std::size_t n = 3 * OrderedStringMapBuilder::kIndexAfterEntries;
  for (std::size_t i = 0; i < n; ++i) b.set(fmt::format("key{}", i), "first");
  for (std::size_t i = n; i-- > 0;) b.set(fmt::format("key{}", i), fmt::format("last{}", i));
  EXPECT_EQ(b.size(), n);
  const OrderedStringMap m = std::move(b).take();
  ASSERT_EQ(m.size(), n);
  std::size_t i = 0;
  for (const auto& [k, v] : m) {
    EXPECT_EQ(k, fmt::format("key{}", i));
    EXPECT_EQ(v, fmt::format("last{}", i));
    ++i;
  }
}

// The builder and set() agree on every sequence, small or past the threshold.
RC_GTEST_PROP(OrderedStringMapBuilder, MeansWhatSetMeans, ()) {
  const auto keys = *rc::gen::container<std::vector<int>>(rc::gen::inRange(0, 40));
  OrderedStringMap by_set;
  OrderedStringMapBuilder builder;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const std::string key = fmt::format("k{}", keys[i]);
    by_set.set(key, std::to_string(i));
    builder.set(key, std::to_string(i));
    RC_ASSERT(builder.size() == by_set.size());
  }
  RC_ASSERT(std::move(builder).take() == by_set);
}

TEST(Properties, DecodingManyRepeatedKeysIsLinear) {
  // 200,000 entries over 50,000 distinct keys: quadratic set() would take minutes.
  std::string text;
  for (int round = 0; round < 4; ++round) {
    for (int k = 0; k < 50000; ++k) text += fmt::format("key{}\x01v{}\x02", k, round);
  }
  auto props = decode_properties(text);
  ASSERT_TRUE(props.ok()) << props.error().to_string();
  ASSERT_EQ(props->size(), 50000u);
  EXPECT_EQ(props->begin()->first, "key0");
  EXPECT_EQ(props->get("key49999"), "v3");
}

TEST(OrderedStringMap, FindFromFindsWhatFindFindsWhateverTheCursor) {
  OrderedStringMap m;
  m.reserve(4);
  m.append_absent("a", "1");
  m.append_absent("b", "2");
  m.append_absent("c", "3");
  for (std::size_t start = 0; start < 5; ++start) {
    for (const char* key : {"a", "b", "c", "zz"}) {
      std::size_t cursor = start;
      const std::string* got = m.find_from(key, cursor);
      EXPECT_EQ(got, m.find(key)) << key << " from " << start;
      if (got != nullptr) {
        cursor = 0;
        EXPECT_EQ(m.find_from(key, cursor), got);
      }
    }
  }
  // In stored order, each look-up leaves the cursor at the next entry.
  std::size_t cursor = 0;
  EXPECT_EQ(*m.find_from("a", cursor), "1");
  EXPECT_EQ(cursor, 1u);
  EXPECT_EQ(*m.find_from("b", cursor), "2");
  EXPECT_EQ(cursor, 2u);
  EXPECT_EQ(m.find_from("zz", cursor), nullptr);
  EXPECT_EQ(cursor, 2u);
  std::size_t empty_cursor = 0;
  EXPECT_EQ(OrderedStringMap().find_from("a", empty_cursor), nullptr);
}

}  // namespace
}  // namespace ferry
