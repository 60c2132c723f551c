#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "common/message.h"
#include "common/message_const.h"
#include "common/properties.h"

namespace ferry {
namespace {

TEST(Properties, EncodeOmitsTheFinalSeparatorAndKeepsOrder) {
  Properties p;
  p.set("TAGS", "TagA");
  p.set("KEYS", "k0");
  p.set("WAIT", "true");
  p.set("TAGS", "TagB");  // replaced in place
  auto text = encode_properties(p);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(*text, "TAGS\x01TagB\x02KEYS\x01k0\x02WAIT\x01true");
  EXPECT_EQ(encoded_properties_size(p), text->size());
  EXPECT_EQ(encode_properties(Properties{}).value(), "");
}

TEST(Properties, DecodeAcceptsTrailingAndEmptyEntries) {
  auto p = decode_properties("\x02" "A\x01" "1\x02\x02" "B\x01\x02" "C\x01x\x01y\x02");
  ASSERT_TRUE(p.ok()) << p.error().to_string();
  ASSERT_EQ(p->size(), 3u);
  EXPECT_EQ(p->get("A"), "1");
  EXPECT_EQ(p->get("B"), "");         // empty value kept
  EXPECT_EQ(p->get("C"), "x\x01y");  // split at the first \x01
  EXPECT_FALSE(p->get("D").has_value());
  EXPECT_TRUE(decode_properties("").value().empty());
}

TEST(Properties, DecodeRepeatedKeyKeepsFirstPositionLastValue) {
  auto p = decode_properties("A\x01" "1\x02" "B\x01" "2\x02" "A\x01" "3");
  ASSERT_TRUE(p.ok());
  std::vector<std::pair<std::string, std::string>> entries(p->begin(), p->end());
  EXPECT_EQ(entries, (std::vector<std::pair<std::string, std::string>>{{"A", "3"}, {"B", "2"}}));
}

TEST(Properties, MalformedInputIsCorrupt) {
  for (std::string_view bad : {std::string_view("novalue"), std::string_view("A\x01" "1\x02junk"),
                               std::string_view("\x01value"), std::string_view("A\x01" "1\x02\x01")}) {
    auto p = decode_properties(bad);
    ASSERT_FALSE(p.ok()) << bad;
    EXPECT_EQ(p.error().code, Errc::corrupt);
    EXPECT_FALSE(p.error().detail.empty());
  }
}

TEST(Properties, EncoderRejectsSeparatorsInText) {
  Properties p;
  p.set("", "v");
  EXPECT_EQ(encode_properties(p).error().code, Errc::invalid_argument);
  Properties q;
  q.set("k\x01", "v");
  EXPECT_FALSE(encode_properties(q).ok());
  Properties r;
  r.set("k", "v\x02");
  EXPECT_FALSE(encode_properties(r).ok());
  Properties s;
  s.set("k", "v\x01w");  // fine: the reader splits at the first \x01
  EXPECT_EQ(decode_properties(encode_properties(s).value()).value(), s);
}

RC_GTEST_PROP(Properties, RoundTrip, (const std::vector<std::pair<std::string, std::string>>& kvs)) {
  Properties p;
  for (auto [k, v] : kvs) {
    std::erase_if(k, [](char c) { return c == 1 || c == 2; });
    std::erase(v, '\x02');
    if (k.empty()) k = "k";
    p.set(k, v);
  }
  auto text = encode_properties(p);
  RC_ASSERT(text.ok());
  auto back = decode_properties(*text);
  RC_ASSERT(back.ok());
  RC_ASSERT(*back == p);
}

RC_GTEST_PROP(Properties, DecodeNeverCrashes, (const std::string& text)) {
  auto p = decode_properties(text);
  if (p.ok()) {
    for (const auto& [k, v] : *p) RC_ASSERT(!k.empty());
  }
}

TEST(Message, TypedAccessors) {
  Message m;
  m.topic = "T";
  EXPECT_FALSE(m.tags().has_value());
  EXPECT_TRUE(m.wait_store_ok());  // default true
  EXPECT_EQ(m.delay_level().value(), 0);
  EXPECT_FALSE(m.real_queue_id().value().has_value());

  m.set_tags("TagA");
  m.set_keys(std::vector<std::string>{"k1", "k2"});
  m.set_uniq_key("7F00000100002A9F0000000000000001");
  m.set_delay_level(3);
  m.set_wait_store_ok(false);
  m.set_retry_topic("OrderTopic");
  m.set_real_topic("%RETRY%G");
  m.set_real_queue_id(QueueId(2));
  m.set_origin_message_id("ABC");
  m.set_max_reconsume_times(16);
  m.set_cluster("DefaultCluster");

  EXPECT_EQ(m.tags(), "TagA");
  EXPECT_EQ(m.keys(), (std::vector<std::string_view>{"k1", "k2"}));
  EXPECT_EQ(m.properties.get(prop::kKeys), "k1 k2");
  EXPECT_EQ(m.uniq_key(), "7F00000100002A9F0000000000000001");
  EXPECT_EQ(m.delay_level().value(), 3);
  EXPECT_FALSE(m.wait_store_ok());
  EXPECT_EQ(m.retry_topic(), "OrderTopic");
  EXPECT_EQ(m.real_topic(), "%RETRY%G");
  EXPECT_EQ(m.real_queue_id().value(), QueueId(2));
  EXPECT_EQ(m.origin_message_id(), "ABC");
  EXPECT_EQ(m.max_reconsume_times().value(), 16);
  EXPECT_EQ(m.cluster(), "DefaultCluster");
}

TEST(Message, KeysSplitOnSpacesDroppingEmpties) {
  Message m;
  m.set_keys(" a  b c ");
  EXPECT_EQ(m.keys(), (std::vector<std::string_view>{"a", "b", "c"}));
}

TEST(Message, WaitFollowsJavaParseBoolean) {
  Message m;
  m.properties.set(prop::kWait, "TRUE");
  EXPECT_TRUE(m.wait_store_ok());
  m.properties.set(prop::kWait, "yes");
  EXPECT_FALSE(m.wait_store_ok());
}

TEST(Message, MalformedNumbersAreErrorsNotAbsent) {
  Message m;
  m.properties.set(prop::kDelay, "3x");
  EXPECT_EQ(m.delay_level().error().code, Errc::invalid_argument);
  m.properties.set(prop::kRealQueueId, "");
  EXPECT_FALSE(m.real_queue_id().ok());
  m.properties.set(prop::kMaxReconsumeTimes, "99999999999");
  EXPECT_FALSE(m.max_reconsume_times().ok());
}

TEST(Message, MsgIdPrefersUniqKey) {
  MessageExt m;
  m.offset_msg_id = "C0A8000700002A9F0000000000000000";
  EXPECT_EQ(m.msg_id(), "C0A8000700002A9F0000000000000000");
  m.set_uniq_key("U");
  EXPECT_EQ(m.msg_id(), "U");
}

}  // namespace
}  // namespace ferry
