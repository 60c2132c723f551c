// The admin tools' statistics and connection requests on a simulated broker:
// GET_TOPIC_STATS_INFO 202, GET_CONSUMER_CONNECTION_LIST 203, GET_PRODUCER_CONNECTION_LIST 204,
// GET_CONSUME_STATS 208 (shapes as RocketMQ 4.9 writes them, refusals with RocketMQ's codes and
// remarks), and DELETE_SUBSCRIPTIONGROUP 207 with removeOffset.
#include "remoting/body/admin_stats.h"
#include "remoting/body/connection.h"
#include "remoting/body/properties_text.h"
#include "remoting/body/subscription_group_config.h"
#include "remoting/header/admin_stats_header.h"
#include "remoting/header/consumer_offset_header.h"
#include "remoting/header/topic_admin_header.h"
#include "tests/broker/consumer_fixture.h"

namespace ferry::broker::testing {
namespace {

namespace body = remoting::body;

RemotingCommand consume_stats_request(const std::string& group, std::optional<std::string> topic) {
  return plain_request(rc::GET_CONSUME_STATS, remoting::GetConsumeStatsRequestHeader{group, std::move(topic)}.to_fields());
}

std::string text_of(const RemotingCommand& r) { return std::string(r.body.begin(), r.body.end()); }

MessageQueue mq(const std::string& topic, std::int32_t q) { return MessageQueue{topic, "broker-a", QueueId(q)}; }

class AdminStatsTest : public ConsumerTest {
 protected:
  body::ConsumeStats consume_stats(const std::string& group, std::optional<std::string> topic) {
    Call c = call(consume_stats_request(group, std::move(topic)));
    EXPECT_EQ(c.reply.code, code::SUCCESS) << c.remark();
    auto s = body::ConsumeStats::decode(c.reply.body);
    EXPECT_TRUE(s.ok()) << s.error().to_string() << " in " << text_of(c.reply);
    return s.ok() ? *s : body::ConsumeStats{};
  }
};

TEST_F(AdminStatsTest, TopicStatsListEveryWriteQueueWithFastjsonKeys) {
  boot();
  for (int i = 0; i < 3; ++i) ASSERT_EQ(send(Msg{.queue_id = 0}).reply.code, code::SUCCESS);
  ASSERT_EQ(send(Msg{.queue_id = 2}).reply.code, code::SUCCESS);

  Call c = call(plain_request(rc::GET_TOPIC_STATS_INFO, remoting::GetTopicStatsInfoRequestHeader{"T"}.to_fields()));
  ASSERT_EQ(c.reply.code, code::SUCCESS) << c.remark();
  const std::string text = text_of(c.reply);
  // fastjson's Map<MessageQueue, TopicOffset>: object keys, fields in alphabetical order.
  EXPECT_NE(text.find(R"({"offsetTable":{{"topic":"T","brokerName":"broker-a","queueId":0}:{"lastUpdateTimestamp":)"),
            std::string::npos)
      << text;
  auto table = body::TopicStatsTable::decode(c.reply.body);
  ASSERT_TRUE(table.ok()) << table.error().to_string() << " in " << text;
  ASSERT_EQ(table->offset_table.size(), 4u);  // the auto-created topic's 4 write queues
  const body::TopicOffset& q0 = table->offset_table.at(mq("T", 0));
  EXPECT_EQ(q0.min_offset, 0);
  EXPECT_EQ(q0.max_offset, 3);
  EXPECT_GT(q0.last_update_timestamp, 0);
  EXPECT_EQ(table->offset_table.at(mq("T", 2)).max_offset, 1);
  const body::TopicOffset& q1 = table->offset_table.at(mq("T", 1));
  EXPECT_EQ(q1.max_offset, 0);
  EXPECT_EQ(q1.last_update_timestamp, 0);  // empty queue
  // What the broker writes, read back, is written again byte for byte.
  EXPECT_EQ(text_of(RemotingCommand{.body = table->encode()}), text);

  Call missing = call(plain_request(rc::GET_TOPIC_STATS_INFO, remoting::GetTopicStatsInfoRequestHeader{"Nope"}.to_fields()));
  EXPECT_EQ(missing.reply.code, code::TOPIC_NOT_EXIST);
  EXPECT_EQ(missing.remark(), "topic[Nope] not exist");
  Call bad = call(remoting::make_request(rc::GET_TOPIC_STATS_INFO, 0));
  EXPECT_EQ(bad.reply.code, code::SYSTEM_ERROR);
  EXPECT_NE(bad.remark().find("topic"), std::string::npos) << bad.remark();
}

TEST_F(AdminStatsTest, ConsumerConnectionsListOnlineMembersOrSayNotOnline) {
  boot();
  const auto request = [] {
    return plain_request(rc::GET_CONSUMER_CONNECTION_LIST, remoting::GetConsumerConnectionListRequestHeader{"CG"}.to_fields());
  };
  Call none = call(request());
  EXPECT_EQ(none.reply.code, code::CONSUMER_NOT_ONLINE);
  EXPECT_EQ(none.remark(), "the consumer group[CG] not online");

  TestClient& b = add_client("10.0.0.2@2");
  TestClient& a = add_client("10.0.0.1@1");
  ASSERT_EQ(heartbeat(b, "CG", "T", "TagA").reply.code, code::SUCCESS);
  ASSERT_EQ(heartbeat(a, "CG", "T", "TagA").reply.code, code::SUCCESS);
  Call c = call(request());
  ASSERT_EQ(c.reply.code, code::SUCCESS) << c.remark();
  auto cc = body::ConsumerConnection::decode(c.reply.body);
  ASSERT_TRUE(cc.ok()) << cc.error().to_string() << " in " << text_of(c.reply);
  ASSERT_EQ(cc->connection_set.size(), 2u);
  EXPECT_EQ(cc->connection_set[0].client_id, "10.0.0.1@1");  // sorted by client id
  EXPECT_EQ(cc->connection_set[1].client_id, "10.0.0.2@2");
  EXPECT_EQ(cc->connection_set[0].language, "JAVA");
  EXPECT_EQ(cc->connection_set[0].version, remoting::kFerryVersion);
  EXPECT_FALSE(cc->connection_set[0].client_addr.empty());
  EXPECT_NE(cc->connection_set[0].client_addr, cc->connection_set[1].client_addr);
  ASSERT_EQ(cc->subscription_table.count("T"), 1u);
  EXPECT_EQ(cc->subscription_table.at("T").sub_string, "TagA");
  EXPECT_EQ(cc->message_model, body::MessageModel::CLUSTERING);
  EXPECT_EQ(cc->consume_type, body::ConsumeType::CONSUME_PASSIVELY);
  EXPECT_NE(text_of(c.reply).find(R"("consumeFromWhere":"CONSUME_FROM_LAST_OFFSET","consumeType":"CONSUME_PASSIVELY")"),
            std::string::npos)
      << text_of(c.reply);

  Call bad = call(remoting::make_request(rc::GET_CONSUMER_CONNECTION_LIST, 0));
  EXPECT_EQ(bad.reply.code, code::SYSTEM_ERROR);
  EXPECT_NE(bad.remark().find("consumerGroup"), std::string::npos) << bad.remark();
}

TEST_F(AdminStatsTest, ProducerConnectionsListMembersOrSayTheGroupDoesNotExist) {
  boot();
  const auto request = [] {
    return plain_request(rc::GET_PRODUCER_CONNECTION_LIST, remoting::GetProducerConnectionListRequestHeader{"PG"}.to_fields());
  };
  Call none = call(request());
  EXPECT_EQ(none.reply.code, code::SYSTEM_ERROR);
  EXPECT_EQ(none.remark(), "the producer group[PG] not exist");

  TestClient& p = add_client("10.0.0.9@9");
  body::HeartbeatData hb;
  hb.client_id = p.client_id;
  hb.producer_data_set.push_back(body::ProducerData{"PG"});
  ASSERT_EQ(call_from(p, heartbeat_request(hb)).reply.code, code::SUCCESS);
  Call c = call(request());
  ASSERT_EQ(c.reply.code, code::SUCCESS) << c.remark();
  auto pc = body::ProducerConnection::decode(c.reply.body);
  ASSERT_TRUE(pc.ok()) << pc.error().to_string();
  ASSERT_EQ(pc->connection_set.size(), 1u);
  EXPECT_EQ(pc->connection_set[0].client_id, "10.0.0.9@9");
  EXPECT_EQ(pc->connection_set[0].language, "JAVA");
}

TEST_F(AdminStatsTest, ConsumeStatsShowBrokerAndCommittedOffsetsPerReadQueue) {
  boot();
  for (int i = 0; i < 3; ++i) ASSERT_EQ(send(Msg{.queue_id = 0}).reply.code, code::SUCCESS);
  ASSERT_EQ(send(Msg{.topic = "U", .queue_id = 1}).reply.code, code::SUCCESS);
  ASSERT_EQ(call(update_offset_request("CG", "T", 0, 2)).reply.code, code::SUCCESS);

  body::ConsumeStats t = consume_stats("CG", "T");
  ASSERT_EQ(t.offset_table.size(), 4u);
  const body::OffsetWrapper& q0 = t.offset_table.at(mq("T", 0));
  EXPECT_EQ(q0.broker_offset, 3);
  EXPECT_EQ(q0.consumer_offset, 2);
  EXPECT_GT(q0.last_timestamp, 0);  // the store time of offset 1
  EXPECT_EQ(t.offset_table.at(mq("T", 1)).consumer_offset, 0);
  EXPECT_EQ(t.offset_table.at(mq("T", 1)).last_timestamp, 0);
  EXPECT_EQ(t.total_diff(), 1);
  EXPECT_EQ(t.consume_tps, 0.0);

  // Without a topic: the topics the group committed offsets for (T, not U).
  body::ConsumeStats all = consume_stats("CG", std::nullopt);
  EXPECT_EQ(all, t);
  EXPECT_EQ(consume_stats("CG", "").offset_table.size(), 4u);  // blank is "every topic" too
  // A topic the broker does not have: left out.
  EXPECT_TRUE(consume_stats("CG", "Nope").offset_table.empty());
  // An online group that subscribes another topic only: T is left out, as RocketMQ does.
  TestClient& a = add_client("10.0.0.1@1");
  ASSERT_EQ(heartbeat(a, "CG", "U").reply.code, code::SUCCESS);
  EXPECT_TRUE(consume_stats("CG", "T").offset_table.empty());
  EXPECT_EQ(consume_stats("CG", "U").offset_table.size(), 4u);

  Call bad = call(remoting::make_request(rc::GET_CONSUME_STATS, 0));
  EXPECT_EQ(bad.reply.code, code::SYSTEM_ERROR);
  EXPECT_NE(bad.remark().find("consumerGroup"), std::string::npos) << bad.remark();
}

TEST_F(AdminStatsTest, DeleteSubscriptionGroupRemovesOffsetsOnlyWhenAsked) {
  boot();
  ASSERT_EQ(send(Msg{}).reply.code, code::SUCCESS);
  for (const std::string g : {"CG", "CG2", "XCG"}) ASSERT_EQ(call(update_offset_request(g, "T", 0, 1)).reply.code, code::SUCCESS);
  const auto del = [](const std::string& group, bool remove_offset) {
    remoting::DeleteSubscriptionGroupRequestHeader h;
    h.group_name = group;
    h.remove_offset = remove_offset;
    return plain_request(rc::DELETE_SUBSCRIPTIONGROUP, h.to_fields());
  };
  ASSERT_EQ(call(del("CG", false)).reply.code, code::SUCCESS);
  EXPECT_TRUE(broker().offsets().query("CG", "T", QueueId(0)).has_value());
  ASSERT_EQ(call(del("CG", true)).reply.code, code::SUCCESS);
  EXPECT_FALSE(broker().offsets().query("CG", "T", QueueId(0)).has_value());
  EXPECT_TRUE(broker().offsets().query("CG2", "T", QueueId(0)).has_value());  // a group whose name starts alike
  EXPECT_TRUE(broker().offsets().query("XCG", "T", QueueId(0)).has_value());  // a group whose name ends alike
  EXPECT_EQ(consume_stats("CG", "T").offset_table.at(mq("T", 0)).consumer_offset, 0);
}

RemotingCommand update_config_request(const std::string& text) {
  RemotingCommand r = remoting::make_request(rc::UPDATE_BROKER_CONFIG, 0);
  r.body.assign(text.begin(), text.end());
  return r;
}

TEST_F(AdminStatsTest, BrokerConfigChangesRunTimeKeysOnlyAndReportsAVersion) {
  boot();
  Call got = call(remoting::make_request(rc::GET_BROKER_CONFIG, 0));
  ASSERT_EQ(got.reply.code, code::SUCCESS) << got.remark();
  EXPECT_EQ(got.field("version"), R"({"counter":0,"timestamp":0})");
  auto before = remoting::body::parse_properties_text(text_of(got.reply));
  ASSERT_TRUE(before.ok()) << before.error().to_string();
  EXPECT_EQ(before->at("brokerName"), "broker-a");
  EXPECT_EQ(before->at("brokerPermission"), "6");
  EXPECT_EQ(before->at("autoCreateTopicEnable"), "true");

  // All or nothing: one refused key refuses the request, naming it.
  Call fixed = call(update_config_request("autoCreateTopicEnable=false\nlistenPort=1\n"));
  EXPECT_EQ(fixed.reply.code, code::SYSTEM_ERROR);
  EXPECT_EQ(fixed.remark(), "updateBrokerConfig: key 'listenPort' cannot change while the broker runs (edit broker.conf and restart)");
  EXPECT_TRUE(broker().config().auto_create_topic_enable);
  Call unknown = call(update_config_request("fooBar=1"));
  EXPECT_EQ(unknown.remark(), "updateBrokerConfig: key 'fooBar' is not a broker setting Ferry knows");
  Call bad = call(update_config_request("slaveReadEnable=yes"));
  EXPECT_EQ(bad.remark(), "updateBrokerConfig: slaveReadEnable: \"yes\" is not true or false");
  Call malformed = call(update_config_request("brokerPermission 4"));
  EXPECT_NE(malformed.remark().find("expected key=value"), std::string::npos) << malformed.remark();

  // Applied at once: a new topic is no longer auto-created, writes are refused.
  Call ok = call(update_config_request("# from mqadmin\nautoCreateTopicEnable = false\nbrokerPermission=4\n"));
  ASSERT_EQ(ok.reply.code, code::SUCCESS) << ok.remark();
  EXPECT_FALSE(broker().config().auto_create_topic_enable);
  EXPECT_EQ(send(Msg{.topic = "Fresh"}).reply.code, code::NO_PERMISSION);
  ASSERT_EQ(call(update_config_request("brokerPermission=6")).reply.code, code::SUCCESS);
  EXPECT_EQ(send(Msg{.topic = "Fresh"}).reply.code, code::TOPIC_NOT_EXIST);
  got = call(remoting::make_request(rc::GET_BROKER_CONFIG, 0));
  EXPECT_NE(got.field("version").find(R"("counter":2)"), std::string::npos) << got.field("version");
  EXPECT_NE(text_of(got.reply).find("autoCreateTopicEnable=false\n"), std::string::npos) << text_of(got.reply);
  // An empty body changes nothing.
  EXPECT_EQ(call(update_config_request("")).reply.code, code::SUCCESS);
}

}  // namespace
}  // namespace ferry::broker::testing
