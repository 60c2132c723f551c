// The admin bodies: TopicStatsTable and ConsumeStats with fastjson's MessageQueue object keys
// (as a Java broker writes them, fields alphabetical), ConsumerConnection / ProducerConnection,
// BrokerStatsData (315), ConsumeStatsList (317), GroupList (300) and properties text; malformed input gets an error naming the field or line.
#include <gtest/gtest.h>

#include "remoting/body/admin_stats.h"
#include "remoting/body/broker_stats_data.h"
#include "remoting/body/connection.h"
#include "remoting/body/consume_stats_list.h"
#include "remoting/body/controller_bodies.h"
#include "remoting/body/group_list.h"
#include "remoting/body/properties_text.h"
#include "remoting/json/json_text.h"

namespace ferry::remoting::body {
namespace {

Bytes bytes_of(const std::string& s) { return Bytes(reinterpret_cast<const std::uint8_t*>(s.data()), s.size()); }

// GET_BROKER_EPOCH_CACHE (1007) as a RocketMQ 5 broker writes it (fastjson, fields alphabetical;
// the last entry ends at Long.MAX_VALUE).
TEST(AdminBodies, EpochEntryCacheFromAJavaBroker) {
  const std::string java =
      R"({"brokerId":2,"brokerName":"broker-a","clusterName":"DefaultCluster","epochList":[)"
      R"({"endOffset":4096,"epoch":1,"startOffset":0},{"endOffset":9223372036854775807,"epoch":3,"startOffset":4096}],)"
      R"("maxOffset":8192})";
  auto c = EpochEntryCache::decode(bytes_of(java));
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  EXPECT_EQ(c->broker_id, 2);
  EXPECT_EQ(c->cluster_name, "DefaultCluster");
  EXPECT_EQ(c->max_offset, 8192);
  ASSERT_EQ(c->epoch_list.size(), 2u);
  EXPECT_EQ(c->epoch_list[1], (EpochEntryCache::Entry{3, 4096, INT64_MAX}));
  const std::vector<std::uint8_t> ours = c->encode();
  EXPECT_EQ(std::string(ours.begin(), ours.end()), java) << "Ferry writes what the Java broker does";
  auto bad = EpochEntryCache::decode(bytes_of(R"({"brokerId":2,"brokerName":"b","clusterName":"c","epochList":[{"epoch":"x"}],"maxOffset":1})"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().detail.find("epochList[0]"), std::string::npos) << bad.error().detail;
}

TEST(AdminBodies, TopicStatsTableFromAJavaBroker) {
  const std::string java =
      R"({"offsetTable":{{"brokerName":"broker-a","queueId":1,"topic":"T"}:{"lastUpdateTimestamp":1700000000000,"maxOffset":7,"minOffset":2},)"
      R"({"brokerName":"broker-a","queueId":0,"topic":"T"}:{"lastUpdateTimestamp":0,"maxOffset":0,"minOffset":0}}})";
  auto t = TopicStatsTable::decode(bytes_of(java));
  ASSERT_TRUE(t.ok()) << t.error().to_string();
  ASSERT_EQ(t->offset_table.size(), 2u);
  const TopicOffset& q1 = t->offset_table.at(MessageQueue{"T", "broker-a", QueueId(1)});
  EXPECT_EQ(q1.min_offset, 2);
  EXPECT_EQ(q1.max_offset, 7);
  EXPECT_EQ(q1.last_update_timestamp, 1700000000000);
  // Ferry writes the same shape (its MessageQueue field order) and reads it back.
  const std::vector<std::uint8_t> ours = t->encode();
  const std::string text(ours.begin(), ours.end());
  EXPECT_EQ(text.find(R"({"offsetTable":{{"topic":"T","brokerName":"broker-a","queueId":0}:{"lastUpdateTimestamp":0,)"), 0u) << text;
  auto again = TopicStatsTable::decode(Bytes(ours.data(), ours.size()));
  ASSERT_TRUE(again.ok()) << again.error().to_string();
  EXPECT_EQ(*again, *t);
}

TEST(AdminBodies, ConsumeStatsWithTpsAndBracesInsideKeyStrings) {
  const std::string java =
      R"({"consumeTps":1.5,"offsetTable":{{"brokerName":"b}{:","queueId":0,"topic":"T"}:{"brokerOffset":10,"consumerOffset":4,"lastTimestamp":5}}})";
  auto c = ConsumeStats::decode(bytes_of(java));
  ASSERT_TRUE(c.ok()) << c.error().to_string();
  EXPECT_EQ(c->consume_tps, 1.5);
  EXPECT_EQ(c->total_diff(), 6);
  EXPECT_EQ(c->offset_table.begin()->first.broker_name, "b}{:");
  auto again = ConsumeStats::decode(bytes_of([&] {
    auto v = c->encode();
    return std::string(v.begin(), v.end());
  }()));
  ASSERT_TRUE(again.ok()) << again.error().to_string();
  EXPECT_EQ(*again, *c);
}

TEST(AdminBodies, MalformedQueueTablesAreNamed) {
  auto no_queue_id = ConsumeStats::decode(bytes_of(R"({"offsetTable":{{"brokerName":"b","topic":"T"}:{"brokerOffset":1,"consumerOffset":0}}})"));
  ASSERT_FALSE(no_queue_id.ok());
  EXPECT_NE(no_queue_id.error().detail.find("queueId"), std::string::npos) << no_queue_id.error().detail;
  auto string_key = TopicStatsTable::decode(bytes_of(R"({"offsetTable":{"T":{"minOffset":0,"maxOffset":0}}})"));
  ASSERT_FALSE(string_key.ok());
  EXPECT_NE(string_key.error().detail.find("offsetTable[key 0]"), std::string::npos) << string_key.error().detail;
  auto missing = TopicStatsTable::decode(bytes_of(R"({})"));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().detail.find("offsetTable"), std::string::npos) << missing.error().detail;
  auto unbalanced = TopicStatsTable::decode(bytes_of(R"({"offsetTable":{{"topic":"T":{}}})"));
  EXPECT_FALSE(unbalanced.ok());
  auto tps = ConsumeStats::decode(bytes_of(R"({"consumeTps":"fast","offsetTable":{}})"));
  ASSERT_FALSE(tps.ok());
  EXPECT_NE(tps.error().detail.find("consumeTps"), std::string::npos);
}

TEST(AdminBodies, ObjectKeysBecomeStringsOnlyWhereAKeyIsExpected) {
  auto q = json::quote_bare_integer_keys(R"({"a":[{"b":1}],"m":{{"x":"}"}:2}})");
  ASSERT_TRUE(q.ok());
  ASSERT_TRUE(q->has_value());
  EXPECT_EQ(**q, R"({"a":[{"b":1}],"m":{"{\"x\":\"}\"}":2}})");
  // A key object holding braces and an escaped quote in a string, an array and a nested object.
  auto nested = json::quote_bare_integer_keys(R"({"a":{{"x":"}{\"","n":[1,{"k":2}]}:3, "b":{"c":{"d":1}}}})");
  ASSERT_TRUE(nested.ok()) << nested.error().to_string();
  ASSERT_TRUE(nested->has_value());
  EXPECT_EQ(**nested, R"({"a":{"{\"x\":\"}{\\\"\",\"n\":[1,{\"k\":2}]}":3, "b":{"c":{"d":1}}}})");
  // Objects in arrays and braces in strings are not keys: the text is left as it is.
  auto plain = json::quote_bare_integer_keys(R"({"a":[{"b":1}],"c":"{x}:"})");
  ASSERT_TRUE(plain.ok());
  EXPECT_FALSE(plain->has_value());
  // A key object that never closes is the parser's to refuse.
  EXPECT_FALSE(json::parse(R"({{"a":1)", json::Numbers::typed, "test").ok());
}

TEST(AdminBodies, ConnectionsRoundTripAndNameBadEnums) {
  ConsumerConnection c;
  c.connection_set.push_back(Connection{"10.0.0.1@1", "10.0.0.1:5000", "JAVA", 407});
  SubscriptionData s;
  s.topic = "T";
  s.sub_string = "TagA";
  s.tags_set = {"TagA"};
  c.subscription_table.emplace("T", s);
  c.message_model = MessageModel::BROADCASTING;
  const auto bytes = c.encode();
  const std::string text(bytes.begin(), bytes.end());
  EXPECT_NE(text.find(R"({"connectionSet":[{"clientAddr":"10.0.0.1:5000","clientId":"10.0.0.1@1","language":"JAVA","version":407}],)"),
            std::string::npos)
      << text;
  auto back = ConsumerConnection::decode(Bytes(bytes.data(), bytes.size()));
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(back->subscription_table.at("T").sub_string, "TagA");
  EXPECT_EQ(back->message_model, MessageModel::BROADCASTING);
  EXPECT_EQ(back->connection_set, c.connection_set);

  auto bad = ConsumerConnection::decode(bytes_of(
      R"({"connectionSet":[],"consumeFromWhere":"CONSUME_FROM_LAST_OFFSET","consumeType":"SOMETIMES","messageModel":"CLUSTERING"})"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().detail.find("consumeType: unknown value \"SOMETIMES\""), std::string::npos) << bad.error().detail;

  ProducerConnection p;
  p.connection_set.push_back(Connection{"c", "a", "CPP", 1});
  const auto pb = p.encode();
  auto pback = ProducerConnection::decode(Bytes(pb.data(), pb.size()));
  ASSERT_TRUE(pback.ok());
  EXPECT_EQ(*pback, p);
  EXPECT_FALSE(ProducerConnection::decode(bytes_of(R"({"connectionSet":[{"clientAddr":"a"}]})")).ok());  // no clientId
}

TEST(AdminBodies, PropertiesText) {
  EXPECT_EQ(properties_text({{"b", "2"}, {"a", "x=y"}}), "a=x=y\nb=2\n");
  auto p = parse_properties_text("# c\n a = 1 \r\n\n!x\nb=x=y\nc=");
  ASSERT_TRUE(p.ok()) << p.error().to_string();
  EXPECT_EQ(*p, (std::map<std::string, std::string>{{"a", "1"}, {"b", "x=y"}, {"c", ""}}));
  auto no_eq = parse_properties_text("a=1\nlistenPort 10911\n");
  ASSERT_FALSE(no_eq.ok());
  EXPECT_EQ(no_eq.error().detail, "line 2: expected key=value, got \"listenPort 10911\"");
  EXPECT_FALSE(parse_properties_text("=1").ok());
  auto twice = parse_properties_text("a=1\na=2");
  ASSERT_FALSE(twice.ok());
  EXPECT_NE(twice.error().detail.find("given twice"), std::string::npos);
  std::string many;
  for (std::size_t i = 0; i <= kPropertiesLinesMax; ++i) many += "#\n";
  EXPECT_FALSE(parse_properties_text(many).ok());
}

TEST(AdminBodies, BrokerStatsDataFromAJavaBroker) {
  const std::string java =
      R"({"statsDay":{"avgpt":2.5,"sum":10,"tps":0.01},"statsHour":{"avgpt":2.0,"sum":4,"tps":0.1},)"
      R"("statsMinute":{"avgpt":1.0,"sum":1,"tps":0.02}})";
  auto d = BrokerStatsData::decode(bytes_of(java));
  ASSERT_TRUE(d.ok()) << d.error().to_string();
  EXPECT_EQ(d->stats_day.sum, 10);
  EXPECT_DOUBLE_EQ(d->stats_day.avgpt, 2.5);
  EXPECT_DOUBLE_EQ(d->stats_hour.tps, 0.1);
  EXPECT_EQ(d->stats_minute.sum, 1);
  const std::vector<std::uint8_t> ours = d->encode();
  EXPECT_EQ(std::string(ours.begin(), ours.end()), java);  // the same bytes back
  auto missing = BrokerStatsData::decode(
      bytes_of(R"({"statsDay":{"avgpt":0,"sum":0,"tps":0},"statsMinute":{"avgpt":0,"sum":0,"tps":0}})"));
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().detail.find("statsHour"), std::string::npos) << missing.error().detail;
  auto bad = BrokerStatsData::decode(bytes_of(
      R"({"statsDay":{"avgpt":0,"sum":0,"tps":"x"},"statsHour":{"avgpt":0,"sum":0,"tps":0},"statsMinute":{"avgpt":0,"sum":0,"tps":0}})"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().detail.find("BrokerStatsData.statsDay.tps"), std::string::npos) << bad.error().detail;
}

TEST(AdminBodies, ConsumeStatsListAndGroupListFromAJavaBroker) {
  const std::string java =
      R"({"brokerAddr":"10.0.0.1:10911","consumeStatsList":[{"G1":[{"consumeTps":1.5,"offsetTable":)"
      R"({{"brokerName":"b","queueId":0,"topic":"T"}:{"brokerOffset":10,"consumerOffset":4,"lastTimestamp":5}}}]},)"
      R"({"G2":[]}],"totalDiff":6})";
  auto l = ConsumeStatsList::decode(bytes_of(java));
  ASSERT_TRUE(l.ok()) << l.error().to_string();
  EXPECT_EQ(l->broker_addr, "10.0.0.1:10911");
  EXPECT_EQ(l->total_diff, 6);
  ASSERT_EQ(l->consume_stats_list.size(), 2u);
  EXPECT_EQ(l->consume_stats_list[0].group, "G1");
  ASSERT_EQ(l->consume_stats_list[0].stats.size(), 1u);
  EXPECT_EQ(l->consume_stats_list[0].stats[0].total_diff(), 6);
  EXPECT_DOUBLE_EQ(l->consume_stats_list[0].stats[0].consume_tps, 1.5);
  EXPECT_EQ(l->consume_stats_list[1].group, "G2");
  EXPECT_TRUE(l->consume_stats_list[1].stats.empty());
  auto again = ConsumeStatsList::decode(l->encode());
  ASSERT_TRUE(again.ok()) << again.error().to_string();
  EXPECT_EQ(*again, *l);
  auto bad = ConsumeStatsList::decode(bytes_of(R"({"consumeStatsList":[{"G1":{}}]})"));
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().detail.find("consumeStatsList[0].G1"), std::string::npos) << bad.error().detail;

  auto g = GroupList::decode(bytes_of(R"({"groupList":["B","A"]})"));
  ASSERT_TRUE(g.ok()) << g.error().to_string();
  EXPECT_EQ(g->group_list, (std::vector<std::string>{"B", "A"}));
  const std::vector<std::uint8_t> ours = GroupList{{"A"}}.encode();
  EXPECT_EQ(std::string(ours.begin(), ours.end()), R"({"groupList":["A"]})");
}

}  // namespace
}  // namespace ferry::remoting::body
