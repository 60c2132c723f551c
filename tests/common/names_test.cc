#include <gtest/gtest.h>

#include "common/delay_levels.h"
#include "common/java_hash.h"
#include "common/names.h"
#include "common/permission.h"
#include "common/tag_filter.h"

namespace ferry {
namespace {

TEST(Names, TopicValidation) {
  EXPECT_TRUE(validate_topic("TopicTest").ok());
  EXPECT_TRUE(validate_topic("%RETRY%GID_ORDER").ok());
  EXPECT_TRUE(validate_topic("a|b-c_d").ok());
  EXPECT_TRUE(validate_topic(std::string(127, 'a')).ok());
  EXPECT_FALSE(validate_topic(std::string(128, 'a')).ok());
  EXPECT_FALSE(validate_topic("").ok());
  for (const char* bad : {"a b", "a.b", "a/b", "a#b", "订单", "a\x01"}) {
    auto st = validate_topic(bad);
    ASSERT_FALSE(st.ok()) << bad;
    EXPECT_EQ(st.error().code, Errc::invalid_argument);
  }
}

TEST(Names, GroupValidation) {
  EXPECT_TRUE(validate_group(std::string(255, 'g')).ok());
  EXPECT_FALSE(validate_group(std::string(256, 'g')).ok());
  EXPECT_FALSE(validate_group("").ok());
  EXPECT_FALSE(validate_group("g g").ok());
}

TEST(Names, SystemTopics) {
  for (const char* t : {"TBW102", "SCHEDULE_TOPIC_XXXX", "RMQ_SYS_TRANS_HALF_TOPIC",
                        "RMQ_SYS_TRACE_TOPIC", "rmq_sys_anything", "OFFSET_MOVED_EVENT"}) {
    EXPECT_TRUE(is_system_topic(t)) << t;
  }
  for (const char* t : {"TopicTest", "%RETRY%G", "RMQ_SYSX", "tbw102"}) {
    EXPECT_FALSE(is_system_topic(t)) << t;
  }
}

TEST(Names, RetryAndDlq) {
  EXPECT_EQ(retry_topic("GID_ORDER"), "%RETRY%GID_ORDER");
  EXPECT_EQ(dlq_topic("GID_ORDER"), "%DLQ%GID_ORDER");
  EXPECT_TRUE(is_retry_topic("%RETRY%GID_ORDER"));
  EXPECT_FALSE(is_retry_topic("%DLQ%GID_ORDER"));
  EXPECT_TRUE(is_dlq_topic("%DLQ%GID_ORDER"));
}

TEST(Permission, Bits) {
  EXPECT_EQ(perm::kPriority, 8);
  EXPECT_EQ(perm::kRead, 4);
  EXPECT_EQ(perm::kWrite, 2);
  EXPECT_EQ(perm::kInherit, 1);
  EXPECT_TRUE(perm::is_readable(6));
  EXPECT_TRUE(perm::is_writeable(6));
  EXPECT_FALSE(perm::is_inherited(6));
  EXPECT_EQ(perm::to_string(6), "RW-");
  EXPECT_EQ(perm::to_string(7), "RWX");
  EXPECT_EQ(perm::to_string(4), "R--");
}

TEST(DelayLevels, DefaultTable) {
  EXPECT_EQ(default_delay(1), std::chrono::seconds(1));
  EXPECT_EQ(default_delay(4), std::chrono::seconds(30));
  EXPECT_EQ(default_delay(5), std::chrono::minutes(1));
  EXPECT_EQ(default_delay(14), std::chrono::minutes(10));
  EXPECT_EQ(default_delay(16), std::chrono::minutes(30));
  EXPECT_EQ(default_delay(18), std::chrono::hours(2));
  EXPECT_FALSE(default_delay(0).has_value());
  EXPECT_FALSE(default_delay(19).has_value());
  auto parsed = parse_delay_levels("1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m 1h 2h");
  ASSERT_TRUE(parsed.ok());
  ASSERT_EQ(parsed->size(), 18u);
  for (int level = 1; level <= 18; ++level) {
    EXPECT_EQ((*parsed)[static_cast<std::size_t>(level - 1)], *default_delay(level)) << level;
  }
  EXPECT_EQ(parse_delay_levels("1d").value().front(), std::chrono::hours(24));
  for (const char* bad : {"", "1", "1x", "s", "-1s", "0s", "1.5s"}) {
    EXPECT_FALSE(parse_delay_levels(bad).ok()) << bad;
  }
}

TEST(TagFilter, SubscribeAll) {
  for (const char* all : {"", "*"}) {
    auto s = parse_tag_expression(all);
    ASSERT_TRUE(s.ok());
    EXPECT_TRUE(s->all);
    EXPECT_EQ(s->expression, "*");
    EXPECT_TRUE(s->matches_tag(std::nullopt));
    EXPECT_TRUE(s->matches_tag("anything"));
    EXPECT_TRUE(s->matches_code(12345));
  }
}

TEST(TagFilter, TagList) {
  auto s = parse_tag_expression(" TagB ||TagA||  || TagB");
  ASSERT_TRUE(s.ok());
  EXPECT_FALSE(s->all);
  EXPECT_EQ(s->tags, (std::vector<std::string>{"TagA", "TagB"}));
  EXPECT_EQ(s->codes, (std::vector<std::int32_t>{2598919, 2598920}));
  EXPECT_TRUE(s->matches_tag("TagA"));
  EXPECT_TRUE(s->matches_tag("TagB"));
  EXPECT_FALSE(s->matches_tag("TagC"));
  EXPECT_FALSE(s->matches_tag("taga"));
  EXPECT_FALSE(s->matches_tag(std::nullopt));
  EXPECT_TRUE(s->matches_code(2598919));
  EXPECT_FALSE(s->matches_code(0));
  EXPECT_FALSE(s->matches_code(std::int64_t{2598919} + (std::int64_t{1} << 32)));
}

TEST(TagFilter, ExpressionWithoutTagsIsAnError) {
  EXPECT_FALSE(parse_tag_expression("||").ok());
  EXPECT_FALSE(parse_tag_expression("   ").ok());
}

TEST(TagFilter, TagsCode) {
  EXPECT_EQ(tags_code("TagA"), 2598919);
  EXPECT_EQ(tags_code(std::nullopt), 0);
  EXPECT_EQ(tags_code(""), 0);
  EXPECT_EQ(tags_code("\xE8\xAE\xA2\xE5\x8D\x95\xE5\x88\x9B\xE5\xBB\xBA"), 1086086002);
}

}  // namespace
}  // namespace ferry
