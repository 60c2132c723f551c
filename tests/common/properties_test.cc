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

// The broker's way to add CLUSTER without a map must give exactly what the map's way gives.
std::string by_the_map(std::string_view text, std::string_view key, std::string_view value) {
  Properties p = decode_properties(text).value();
  p.set(key, value);
  return encode_properties(p).value();
}

TEST(Properties, AppendToAPlainTextIsWhatTheMapWouldEncode) {
  const std::string text = "TAGS\x01TagA\x02KEYS\x01k1 k2\x02UNIQ_KEY\x01" "AB\x02WAIT\x01true";
  auto appended = append_property_if_plain(text, "CLUSTER", "DefaultCluster", "__RMQ.TRANSIENT.");
  ASSERT_TRUE(appended.has_value());
  EXPECT_EQ(*appended, text + "\x02" "CLUSTER\x01" "DefaultCluster");
  EXPECT_EQ(*appended, by_the_map(text, "CLUSTER", "DefaultCluster"));
  EXPECT_EQ(append_property_if_plain("", "CLUSTER", "C", "__RMQ.TRANSIENT.").value(), "CLUSTER\x01" "C");
  // A value may hold \x01 (only the first one separates).
  EXPECT_EQ(append_property_if_plain("A\x01x\x01y", "K", "v", "__").value(), "A\x01x\x01y\x02K\x01v");
}

TEST(Properties, AppendRefusesWhatTheMapWouldChange) {
  const std::string_view drop = "__RMQ.TRANSIENT.";
  EXPECT_FALSE(append_property_if_plain("A\x01" "1\x02", "K", "v", drop));              // trailing \x02
  EXPECT_FALSE(append_property_if_plain("\x02" "A\x01" "1", "K", "v", drop));            // leading \x02
  EXPECT_FALSE(append_property_if_plain("A\x01" "1\x02\x02" "B\x01" "2", "K", "v", drop));  // empty entry
  EXPECT_FALSE(append_property_if_plain("A\x01" "1\x02" "A\x01" "2", "K", "v", drop));  // repeated key
  EXPECT_FALSE(append_property_if_plain("K\x01old", "K", "v", drop));                    // key present
  EXPECT_FALSE(append_property_if_plain("__RMQ.TRANSIENT.X\x01" "1", "K", "v", drop));    // dropped key
  EXPECT_FALSE(append_property_if_plain("A", "K", "v", drop));                            // malformed
  EXPECT_FALSE(append_property_if_plain("A\x01" "1", "K", "v\x02w", drop));              // unencodable
}

RC_GTEST_PROP(Properties, AppendWhenPresentEqualsTheMapsWay, ()) {
  // Texts over a tiny alphabet, so repeats, empty entries and the key itself come up often.
  const auto text = *rc::gen::container<std::string>(rc::gen::element('A', 'B', 'K', '_', '\x01', '\x02'));
  const auto appended = append_property_if_plain(text, "K", "v", "_");
  if (!appended) return;
  RC_ASSERT(decode_properties(text).ok());
  RC_ASSERT(*appended == by_the_map(text, "K", "v"));
}

RC_GTEST_PROP(Properties, AppendTakesEveryPlainText, (const std::vector<std::pair<std::string, std::string>>& kvs)) {
  // Any map without the key or the prefix, encoded, is plain: appending must not refuse it.
  Properties p;
  for (const auto& [k, v] : kvs) {
    std::string key = "k" + k;
    std::erase_if(key, [](char c) { return c == '\x01' || c == '\x02'; });
    std::string value = v;
    std::erase(value, '\x02');
    p.set(key, value);
  }
  RC_PRE(p.size() <= 32u);
  const std::string text = encode_properties(p).value();
  const auto appended = append_property_if_plain(text, "CLUSTER", "c", "__");
  RC_ASSERT(appended.has_value());
  RC_ASSERT(*appended == by_the_map(text, "CLUSTER", "c"));
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
