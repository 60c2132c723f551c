// Typed extFields headers: RocketMQ's field names, both directions, and decode errors that name
// the header and the field.
#include <gtest/gtest.h>

#include "remoting/decimal_text.h"
#include "remoting/header_binary.h"
#include "remoting/header/broker_registration_header.h"
#include "remoting/header/client_header.h"
#include "remoting/header/consumer_offset_header.h"
#include "remoting/header/kv_config_header.h"
#include "remoting/header/pull_message_header.h"
#include "remoting/header/query_message_header.h"
#include "remoting/header/queue_offset_header.h"
#include "remoting/header/route_header.h"
#include "remoting/header/send_message_header.h"
#include "remoting/header/topic_admin_header.h"
#include "remoting/request_code.h"

namespace ferry::remoting {
namespace {

template <typename H>
void expect_round_trip(const H& h, const ExtFields& expected) {
  const ExtFields f = h.to_fields();
  EXPECT_TRUE(f.same_entries(expected)) << "fields differ from RocketMQ's names/values";
  auto back = H::from_fields(f);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(*back, h);
}

template <typename H>
void expect_error(const ExtFields& f, std::string_view text) {
  auto r = H::from_fields(f);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::invalid_argument);
  EXPECT_EQ(r.error().detail, text);
}

SendMessageRequestHeader sample_send() {
  SendMessageRequestHeader h;
  h.producer_group = "PG";
  h.topic = "T";
  h.default_topic = "TBW102";
  h.default_topic_queue_nums = 4;
  h.queue_id = QueueId(-1);
  h.sys_flag = 1;
  h.born_timestamp = 1700000000123;
  h.flag = 5;
  h.properties = "KEYS\x01k";
  h.reconsume_times = 2;
  h.unit_mode = true;
  h.batch = true;
  h.max_reconsume_times = 16;
  h.broker_name = "broker-a";
  return h;
}

TEST(SendMessageHeader, V1AndV2Names) {
  const auto h = sample_send();
  const ExtFields v1 = h.to_fields();
  EXPECT_TRUE(v1.same_entries(ExtFields{
      {"producerGroup", "PG"}, {"topic", "T"}, {"defaultTopic", "TBW102"},
      {"defaultTopicQueueNums", "4"}, {"queueId", "-1"}, {"sysFlag", "1"},
      {"bornTimestamp", "1700000000123"}, {"flag", "5"}, {"properties", "KEYS\x01k"},
      {"reconsumeTimes", "2"}, {"unitMode", "true"}, {"batch", "true"},
      {"maxReconsumeTimes", "16"}, {"bname", "broker-a"}}));
  const ExtFields v2 = h.to_fields_v2();
  EXPECT_TRUE(v2.same_entries(ExtFields{
      {"a", "PG"}, {"b", "T"}, {"c", "TBW102"}, {"d", "4"}, {"e", "-1"}, {"f", "1"},
      {"g", "1700000000123"}, {"h", "5"}, {"i", "KEYS\x01k"}, {"j", "2"}, {"k", "true"},
      {"l", "16"}, {"m", "true"}, {"n", "broker-a"}}));
  EXPECT_EQ(*SendMessageRequestHeader::from_fields(v1), h);
  EXPECT_EQ(*SendMessageRequestHeader::from_fields_v2(v2), h);
  // V1 ↔ V2 through the struct.
  EXPECT_EQ(SendMessageRequestHeader::from_fields(v1)->to_fields_v2(), v2);
  EXPECT_EQ(*SendMessageRequestHeader::from_request(request_code::SEND_MESSAGE, v1), h);
  EXPECT_EQ(*SendMessageRequestHeader::from_request(request_code::SEND_BATCH_MESSAGE, v2), h);
  EXPECT_FALSE(SendMessageRequestHeader::from_request(request_code::PULL_MESSAGE, v2).ok());
  EXPECT_FALSE(SendMessageRequestHeader::from_request(request_code::SEND_MESSAGE, v2).ok());
}

TEST(SendMessageHeader, OptionalFieldsMayBeAbsent) {
  SendMessageRequestHeader h = sample_send();
  h.properties.reset();
  h.reconsume_times.reset();
  h.max_reconsume_times.reset();
  h.broker_name.reset();
  h.unit_mode = false;
  h.batch = false;
  ExtFields f = h.to_fields_v2();
  EXPECT_EQ(f.size(), 10u) << "a-h plus k and m";
  f.erase("k");
  f.erase("m");
  EXPECT_EQ(*SendMessageRequestHeader::from_fields_v2(f), h);
}

TEST(SendMessageHeader, ErrorsNameTheField) {
  ExtFields f = sample_send().to_fields();
  f.erase("topic");
  expect_error<SendMessageRequestHeader>(f, "SendMessageRequestHeader: missing field topic");
  f = sample_send().to_fields_v2();
  f.erase("b");
  auto r = SendMessageRequestHeader::from_fields_v2(f);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().detail, "SendMessageRequestHeaderV2: missing field b");

  f = sample_send().to_fields_v2();
  f.set("e", "3x");
  r = SendMessageRequestHeader::from_fields_v2(f);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().detail, "SendMessageRequestHeaderV2: field e = \"3x\" is not an int32");
  f.set("e", "3");
  f.set("g", "99999999999999999999");
  r = SendMessageRequestHeader::from_fields_v2(f);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().detail,
            "SendMessageRequestHeaderV2: field g = \"99999999999999999999\" is not an int64");
  f.set("g", "1");
  f.set("k", "yes");
  r = SendMessageRequestHeader::from_fields_v2(f);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().detail, "SendMessageRequestHeaderV2: field k = \"yes\" is not a boolean");
}

// The binary entry form of a map, as a peer would put it on the wire (in the map's order).
std::vector<std::uint8_t> entries_of(const ExtFields& f) {
  std::vector<std::uint8_t> out;
  for (const auto& [k, v] : f) append_binary_ext_field(out, k, v);
  return out;
}

Result<SendMessageRequestHeader> from_entries(const std::vector<std::uint8_t>& e, std::int32_t code = request_code::SEND_MESSAGE_V2) {
  return SendMessageRequestHeader::from_request_binary(code, Bytes(e.data(), e.size()));
}

TEST(SendMessageHeader, DecodesStraightFromBinaryEntriesAsFromTheMap) {
  const SendMessageRequestHeader h = sample_send();
  std::vector<std::uint8_t> encoded;
  h.to_binary_v2(encoded);
  EXPECT_EQ(encoded, entries_of(h.to_fields_v2())) << "encode_binary writes what the map would";
  EXPECT_EQ(*from_entries(encoded), h);
  EXPECT_EQ(*from_entries(encoded, request_code::SEND_BATCH_MESSAGE), h);
  EXPECT_FALSE(from_entries(encoded, request_code::SEND_MESSAGE).ok()) << "V1 names expected";
  EXPECT_EQ(*from_entries(entries_of(h.to_fields()), request_code::SEND_MESSAGE), h);

  // Another order, a field nobody knows, and a key twice (the map keeps the last value).
  ExtFields shuffled{{"zz", "ignored"}, {"i", "KEYS\x01k"}, {"b", "Other"}};
  for (const auto& [k, v] : h.to_fields_v2()) {
    if (k != "i") shuffled.append_absent(k, v);
  }
  std::vector<std::uint8_t> e = entries_of(shuffled);
  append_binary_ext_field(e, "i", *h.properties);
  SendMessageRequestHeader expected = h;
  expected.topic = "T";  // "b" came twice: the second (sample's) value counts
  ASSERT_TRUE(from_entries(e).ok()) << from_entries(e).error().to_string();
  EXPECT_EQ(*from_entries(e), expected);
}

TEST(SendMessageHeader, BinaryDecodeErrorsAreTheMapsErrors) {
  ExtFields f = sample_send().to_fields_v2();
  f.erase("b");
  auto r = from_entries(entries_of(f));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().detail, "SendMessageRequestHeaderV2: missing field b");
  f = sample_send().to_fields_v2();
  f.set("e", "3x");
  f.set("k", "yes");
  r = from_entries(entries_of(f));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().detail, "SendMessageRequestHeaderV2: field e = \"3x\" is not an int32") << "the first in table order";

  // Entries that do not read are corrupt, as read_binary_header says.
  std::vector<std::uint8_t> e = entries_of(sample_send().to_fields_v2());
  e.pop_back();
  r = from_entries(e);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::corrupt);
  EXPECT_NE(r.error().detail.find("exceeds the"), std::string::npos) << r.error().detail;
}

TEST(SendMessageHeader, Reply) {
  SendMessageResponseHeader h{"AABB,CCDD", QueueId(3), QueueOffset(42), "tx", "DefaultRegion", "true"};
  std::vector<std::uint8_t> encoded;
  h.to_binary(encoded);
  EXPECT_EQ(encoded, entries_of(h.to_fields()));
  expect_round_trip(h, ExtFields{{"msgId", "AABB,CCDD"}, {"queueId", "3"}, {"queueOffset", "42"},
                                 {"transactionId", "tx"}, {"MSG_REGION", "DefaultRegion"},
                                 {"TRACE_ON", "true"}});
  expect_error<SendMessageResponseHeader>(ExtFields{{"msgId", "x"}, {"queueId", "1"}},
                                          "SendMessageResponseHeader: missing field queueOffset");
}

TEST(PullMessageHeader, RequestAndReply) {
  PullMessageRequestHeader p{"G", "T", QueueId(1), QueueOffset(100), 32, 7, QueueOffset(90), 15000, "TagA || TagB", 123, "TAG"};
  expect_round_trip(p, ExtFields{{"consumerGroup", "G"}, {"topic", "T"}, {"queueId", "1"},
                                 {"queueOffset", "100"}, {"maxMsgNums", "32"}, {"sysFlag", "7"},
                                 {"commitOffset", "90"}, {"suspendTimeoutMillis", "15000"},
                                 {"subscription", "TagA || TagB"}, {"subVersion", "123"},
                                 {"expressionType", "TAG"}});
  PullMessageResponseHeader r{1, QueueOffset(200), QueueOffset(0), QueueOffset(300)};
  expect_round_trip(r, ExtFields{{"suggestWhichBrokerId", "1"}, {"nextBeginOffset", "200"},
                                 {"minOffset", "0"}, {"maxOffset", "300"}});
  expect_error<PullMessageResponseHeader>(
      ExtFields{{"suggestWhichBrokerId", "0"}, {"nextBeginOffset", "1"}, {"minOffset", "0"}},
      "PullMessageResponseHeader: missing field maxOffset");
}

TEST(ConsumerOffsetHeaders, All) {
  expect_round_trip(QueryConsumerOffsetRequestHeader{"G", "T", QueueId(2)},
                    ExtFields{{"consumerGroup", "G"}, {"topic", "T"}, {"queueId", "2"}});
  expect_round_trip(QueryConsumerOffsetResponseHeader{QueueOffset(77)}, ExtFields{{"offset", "77"}});
  expect_round_trip(UpdateConsumerOffsetRequestHeader{"G", "T", QueueId(2), QueueOffset(9)},
                    ExtFields{{"consumerGroup", "G"}, {"topic", "T"}, {"queueId", "2"},
                              {"commitOffset", "9"}});
  expect_error<QueryConsumerOffsetRequestHeader>(
      ExtFields{{"consumerGroup", "G"}, {"topic", "T"}, {"queueId", "2147483648"}},
      "QueryConsumerOffsetRequestHeader: field queueId = \"2147483648\" is not an int32");
}

TEST(QueueOffsetHeaders, All) {
  const ExtFields tq{{"topic", "T"}, {"queueId", "1"}};
  expect_round_trip(GetMaxOffsetRequestHeader{"T", QueueId(1)}, tq);
  expect_round_trip(GetMinOffsetRequestHeader{"T", QueueId(1)}, tq);
  expect_round_trip(GetEarliestMsgStoretimeRequestHeader{"T", QueueId(1)}, tq);
  expect_round_trip(SearchOffsetRequestHeader{"T", QueueId(1), 1700000000000},
                    ExtFields{{"topic", "T"}, {"queueId", "1"}, {"timestamp", "1700000000000"}});
  expect_round_trip(GetMaxOffsetResponseHeader{QueueOffset(5)}, ExtFields{{"offset", "5"}});
  expect_round_trip(GetMinOffsetResponseHeader{QueueOffset(0)}, ExtFields{{"offset", "0"}});
  expect_round_trip(SearchOffsetResponseHeader{QueueOffset(3)}, ExtFields{{"offset", "3"}});
  expect_round_trip(GetEarliestMsgStoretimeResponseHeader{12}, ExtFields{{"timestamp", "12"}});
}

TEST(QueryMessageHeaders, All) {
  QueryMessageRequestHeader q{"T", "k1", 32, 0, 99, false};
  expect_round_trip(q, ExtFields{{"topic", "T"}, {"key", "k1"}, {"maxNum", "32"},
                                 {"beginTimestamp", "0"}, {"endTimestamp", "99"}});
  q.unique_key_query = true;
  expect_round_trip(q, ExtFields{{"topic", "T"}, {"key", "k1"}, {"maxNum", "32"},
                                 {"beginTimestamp", "0"}, {"endTimestamp", "99"},
                                 {"_UNIQUE_KEY_QUERY", "true"}});
  expect_round_trip(QueryMessageResponseHeader{5, PhysicalOffset(6)},
                    ExtFields{{"indexLastUpdateTimestamp", "5"}, {"indexLastUpdatePhyoffset", "6"}});
  expect_round_trip(ViewMessageRequestHeader{PhysicalOffset(123456)}, ExtFields{{"offset", "123456"}});
}

TEST(ClientHeaders, All) {
  expect_round_trip(UnregisterClientRequestHeader{"c1", "PG", std::nullopt},
                    ExtFields{{"clientID", "c1"}, {"producerGroup", "PG"}});
  expect_round_trip(ConsumerSendMsgBackRequestHeader{PhysicalOffset(10), "G", 0, "ID", "T", false, 16},
                    ExtFields{{"offset", "10"}, {"group", "G"}, {"delayLevel", "0"},
                              {"originMsgId", "ID"}, {"originTopic", "T"}, {"unitMode", "false"},
                              {"maxReconsumeTimes", "16"}});
  expect_round_trip(GetConsumerListByGroupRequestHeader{"G"}, ExtFields{{"consumerGroup", "G"}});
  expect_round_trip(NotifyConsumerIdsChangedRequestHeader{"G"}, ExtFields{{"consumerGroup", "G"}});
  expect_error<UnregisterClientRequestHeader>(ExtFields{{"producerGroup", "PG"}},
                                              "UnregisterClientRequestHeader: missing field clientID");
  expect_error<ConsumerSendMsgBackRequestHeader>(
      ExtFields{{"offset", "1"}, {"group", "G"}, {"delayLevel", "-1"}, {"unitMode", "maybe"}},
      "ConsumerSendMsgBackRequestHeader: field unitMode = \"maybe\" is not a boolean");
}

TEST(NameServerHeaders, All) {
  expect_round_trip(GetRouteInfoRequestHeader{"T"}, ExtFields{{"topic", "T"}});
  RegisterBrokerRequestHeader reg{"b", "10.0.0.1:10911", "c", "10.0.0.1:10912", 0, false, 12345};
  expect_round_trip(reg, ExtFields{{"brokerName", "b"}, {"brokerAddr", "10.0.0.1:10911"},
                                   {"clusterName", "c"}, {"haServerAddr", "10.0.0.1:10912"},
                                   {"brokerId", "0"}, {"compressed", "false"},
                                   {"bodyCrc32", "12345"}});
  // compressed and bodyCrc32 may be absent (older brokers).
  auto old = RegisterBrokerRequestHeader::from_fields(
      ExtFields{{"brokerName", "b"}, {"brokerAddr", "a"}, {"clusterName", "c"},
                {"haServerAddr", "h"}, {"brokerId", "1"}});
  ASSERT_TRUE(old.ok()) << old.error().to_string();
  EXPECT_FALSE(old->compressed);
  EXPECT_EQ(old->body_crc32, 0);
  expect_round_trip(RegisterBrokerResponseHeader{"h:1", "m:2"},
                    ExtFields{{"haServerAddr", "h:1"}, {"masterAddr", "m:2"}});
  expect_round_trip(RegisterBrokerResponseHeader{}, ExtFields{});
  expect_round_trip(UnregisterBrokerRequestHeader{"b", "a", "c", 0},
                    ExtFields{{"brokerName", "b"}, {"brokerAddr", "a"}, {"clusterName", "c"},
                              {"brokerId", "0"}});
  expect_round_trip(PutKvConfigRequestHeader{"ns", "k", "v"},
                    ExtFields{{"namespace", "ns"}, {"key", "k"}, {"value", "v"}});
  expect_round_trip(GetKvConfigRequestHeader{"ns", "k"}, ExtFields{{"namespace", "ns"}, {"key", "k"}});
  expect_round_trip(GetKvConfigResponseHeader{"v"}, ExtFields{{"value", "v"}});
  expect_round_trip(DeleteKvConfigRequestHeader{"ns", "k"},
                    ExtFields{{"namespace", "ns"}, {"key", "k"}});
}

TEST(TopicAdminHeader, CreateTopic) {
  CreateTopicRequestHeader h{"T", "TBW102", 8, 8, 6, "SINGLE_TAG", 0, true};
  expect_round_trip(h, ExtFields{{"topic", "T"}, {"defaultTopic", "TBW102"},
                                 {"readQueueNums", "8"}, {"writeQueueNums", "8"}, {"perm", "6"},
                                 {"topicFilterType", "SINGLE_TAG"}, {"topicSysFlag", "0"},
                                 {"order", "true"}});
  ExtFields f = h.to_fields();
  f.set("topicFilterType", "ANY");
  expect_error<CreateTopicRequestHeader>(
      f, "CreateTopicRequestHeader: field topicFilterType = \"ANY\" is not SINGLE_TAG or MULTI_TAG");
}

TEST(AdminHeaders, DeleteTopicAndGroupAndNameServerLookUps) {
  expect_round_trip(DeleteTopicRequestHeader{"T"}, ExtFields{{"topic", "T"}});
  expect_round_trip(DeleteSubscriptionGroupRequestHeader{"CG"}, ExtFields{{"groupName", "CG"}});
  expect_round_trip(DeleteTopicFromNamesrvRequestHeader{"T", "c"},
                    ExtFields{{"topic", "T"}, {"clusterName", "c"}});
  expect_round_trip(DeleteTopicFromNamesrvRequestHeader{"T", std::nullopt}, ExtFields{{"topic", "T"}});
  expect_round_trip(GetTopicsByClusterRequestHeader{"c"}, ExtFields{{"cluster", "c"}});
  expect_round_trip(GetKvListByNamespaceRequestHeader{"ns"}, ExtFields{{"namespace", "ns"}});
  expect_error<DeleteSubscriptionGroupRequestHeader>(
      ExtFields{}, "DeleteSubscriptionGroupRequestHeader: missing field groupName");
  expect_error<GetKvListByNamespaceRequestHeader>(
      ExtFields{{"name", "ns"}}, "GetKVListByNamespaceRequestHeader: missing field namespace");
}

TEST(DecimalText, StrictParsing) {
  EXPECT_EQ(parse_int32("0"), 0);
  EXPECT_EQ(parse_int32("-2147483648"), INT32_MIN);
  EXPECT_EQ(parse_int32("+7"), 7);
  EXPECT_FALSE(parse_int32("2147483648"));
  EXPECT_FALSE(parse_int32(""));
  EXPECT_FALSE(parse_int32("+"));
  EXPECT_FALSE(parse_int32("+-1"));
  EXPECT_FALSE(parse_int32(" 1"));
  EXPECT_FALSE(parse_int32("1 "));
  EXPECT_FALSE(parse_int32("1.0"));
  EXPECT_FALSE(parse_int32("0x10"));
  EXPECT_EQ(parse_int64("9223372036854775807"), INT64_MAX);
  EXPECT_FALSE(parse_int64("9223372036854775808"));
  EXPECT_EQ(parse_bool("true"), true);
  EXPECT_EQ(parse_bool("FALSE"), false);
  EXPECT_FALSE(parse_bool("1"));
  EXPECT_FALSE(parse_bool(""));
}

}  // namespace
}  // namespace ferry::remoting
