// JSON bodies: exact field names, standard JSON out, fastjson's unquoted integer keys in, and
// errors that name the field's path.
#include <gtest/gtest.h>

#include "remoting/body/batch_ack_body.h"
#include "remoting/body/broker_live_table.h"
#include "remoting/body/epoch_acks.h"
#include "remoting/body/cluster_info.h"
#include "remoting/body/consumer_id_list.h"
#include "remoting/body/ha_runtime_info.h"
#include "remoting/body/heartbeat_data.h"
#include "remoting/body/kv_table.h"
#include "remoting/body/lock_batch_body.h"
#include "remoting/body/register_broker_body.h"
#include "remoting/body/topic_list.h"
#include "remoting/body/topic_route_data.h"
#include "remoting/json/json_text.h"
#include "tests/remoting/vectors.h"

namespace ferry::remoting::body {
namespace {

using testing::to_bytes;
using testing::to_string;

template <typename B>
void expect_round_trip(const B& b) {
  const auto bytes = b.encode();
  auto back = B::decode(bytes);
  ASSERT_TRUE(back.ok()) << back.error().to_string() << "\n" << to_string(bytes);
  EXPECT_EQ(*back, b) << to_string(bytes);
  // What Ferry writes is standard JSON: it parses without the unquoted-key pass.
  rapidjson::Document d;
  d.Parse(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  EXPECT_FALSE(d.HasParseError()) << to_string(bytes);
}

template <typename B>
void expect_error(std::string_view json, std::string_view text) {
  auto r = B::decode(to_bytes(json));
  ASSERT_FALSE(r.ok()) << json;
  EXPECT_NE(r.error().detail.find(text), std::string::npos) << r.error().detail;
}

TEST(UnquotedKeys, QuotesOnlyBareIntegerKeys) {
  auto q = json::quote_bare_integer_keys(R"({"a@b":{0:12, -1 :3},"s":"{0:1}","x":[1,2],7:{}})");
  ASSERT_TRUE(q.ok());
  ASSERT_TRUE(q->has_value());
  EXPECT_EQ(**q, R"({"a@b":{"0":12, "-1" :3},"s":"{0:1}","x":[1,2],"7":{}})");
  auto none = json::quote_bare_integer_keys(R"({"a":[1,2,{"b":"c\"{0:"}]})");
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  auto offsets = json::parse(R"({"offsetTable":{"topic@group":{0:12,1:7}}})",
                             json::Numbers::typed, "offsets");
  ASSERT_TRUE(offsets.ok()) << offsets.error().to_string();
  EXPECT_EQ((*offsets)["offsetTable"]["topic@group"]["1"].GetInt(), 7);
}

TEST(TopicRouteDataBody, RoundTripAndExactNames) {
  TopicRouteData t;
  t.queue_datas.push_back({"broker-a", 4, 4, 6, 0});
  t.queue_datas.push_back({"broker-b", 8, 8, 7, 1});
  t.broker_datas.push_back({"c1", "broker-a", {{0, "10.0.0.1:10911"}, {1, "10.0.0.2:10911"}}});
  expect_round_trip(t);
  const std::string text = to_string(t.encode());
  EXPECT_EQ(text,
            R"({"queueDatas":[{"brokerName":"broker-a","readQueueNums":4,"writeQueueNums":4,)"
            R"("perm":6,"topicSynFlag":0,"topicSysFlag":0},{"brokerName":"broker-b",)"
            R"("readQueueNums":8,"writeQueueNums":8,"perm":7,"topicSynFlag":1,"topicSysFlag":1}],)"
            R"("brokerDatas":[{"cluster":"c1","brokerName":"broker-a","brokerAddrs":)"
            R"({"0":"10.0.0.1:10911","1":"10.0.0.2:10911"}}],"filterServerTable":{}})");
}

TEST(TopicRouteDataBody, ReadsFastjsonOutput) {
  auto t = TopicRouteData::decode(to_bytes(
      R"({"brokerDatas":[{"brokerAddrs":{0:"10.0.0.1:10911",1:"10.0.0.2:10911"},)"
      R"("brokerName":"broker-a","cluster":"DefaultCluster"}],"filterServerTable":{},)"
      R"("queueDatas":[{"brokerName":"broker-a","perm":6,"readQueueNums":4,)"
      R"("topicSynFlag":3,"writeQueueNums":4}]})"));
  ASSERT_TRUE(t.ok()) << t.error().to_string();
  ASSERT_EQ(t->broker_datas.size(), 1u);
  EXPECT_EQ(t->broker_datas[0].broker_addrs.at(0), "10.0.0.1:10911");
  EXPECT_EQ(t->broker_datas[0].broker_addrs.at(1), "10.0.0.2:10911");
  EXPECT_EQ(t->broker_datas[0].cluster, "DefaultCluster");
  ASSERT_EQ(t->queue_datas.size(), 1u);
  EXPECT_EQ(t->queue_datas[0].topic_sys_flag, 3) << "4.x name topicSynFlag";
  EXPECT_EQ(t->queue_datas[0].perm, 6);
}

TEST(TopicRouteDataBody, Errors) {
  expect_error<TopicRouteData>(R"({"queueDatas":[{"brokerName":"b","readQueueNums":"x"}]})",
                               "TopicRouteData.queueDatas[0].readQueueNums: not an integer");
  expect_error<TopicRouteData>(
      R"({"brokerDatas":[{"cluster":"c","brokerName":"b","brokerAddrs":{"m":"x"}}]})",
      "TopicRouteData.brokerDatas[0].brokerAddrs[\"m\"]");
  expect_error<TopicRouteData>(R"({"queueDatas":)", "TopicRouteData body: malformed JSON");
  expect_error<TopicRouteData>(R"([])", "TopicRouteData: not a JSON object");
}

TEST(HeartbeatBody, RoundTrip) {
  HeartbeatData h;
  h.client_id = "10.0.0.9@123";
  h.producer_data_set.push_back({"PG"});
  ConsumerData c;
  c.group_name = "G";
  c.consume_type = ConsumeType::CONSUME_ACTIVELY;
  c.message_model = MessageModel::BROADCASTING;
  c.consume_from_where = ConsumeFromWhere::CONSUME_FROM_TIMESTAMP;
  c.unit_mode = true;
  c.subscription_data_set.push_back({"T", "A || B", {"A", "B"}, {65, 66}, 42, "TAG", false});
  c.subscription_data_set.push_back({"%RETRY%G", "*", {}, {}, 43, "TAG", false});
  h.consumer_data_set.push_back(c);
  expect_round_trip(h);
  const std::string text = to_string(h.encode());
  for (const char* name : {"\"clientID\"", "\"producerDataSet\"", "\"consumerDataSet\"",
                           "\"subscriptionDataSet\"", "\"consumeType\":\"CONSUME_ACTIVELY\"",
                           "\"messageModel\":\"BROADCASTING\"",
                           "\"consumeFromWhere\":\"CONSUME_FROM_TIMESTAMP\"", "\"tagsSet\"",
                           "\"codeSet\":[65,66]", "\"subVersion\":42", "\"subString\"",
                           "\"classFilterMode\":false", "\"expressionType\":\"TAG\""}) {
    EXPECT_NE(text.find(name), std::string::npos) << name << " in " << text;
  }
}

TEST(HeartbeatBody, Errors) {
  expect_error<HeartbeatData>(R"({"consumerDataSet":[]})", "HeartbeatData.clientID: missing");
  expect_error<HeartbeatData>(
      R"({"clientID":"c","consumerDataSet":[{"groupName":"G","consumeType":"CONSUME_PASSIVELY",)"
      R"("messageModel":"SOMETIMES","consumeFromWhere":"CONSUME_FROM_LAST_OFFSET"}]})",
      "HeartbeatData.consumerDataSet[0].messageModel: unknown value \"SOMETIMES\"");
  expect_error<HeartbeatData>(
      R"({"clientID":"c","consumerDataSet":[{"groupName":"G","consumeType":"CONSUME_PASSIVELY",)"
      R"("messageModel":"CLUSTERING","consumeFromWhere":"CONSUME_FROM_LAST_OFFSET",)"
      R"("subscriptionDataSet":[{"topic":"T","subString":"*","codeSet":["x"]}]}]})",
      "HeartbeatData.consumerDataSet[0].subscriptionDataSet[0].codeSet[0]: not an int32");
}

TEST(RegisterBrokerBodyJson, RoundTripAndShape) {
  RegisterBrokerBody b;
  auto& w = b.topic_config_serialize_wrapper;
  w.data_version = {3, 1700000000000};
  w.topic_config_table["T"] = {"T", 4, 4, 6, "SINGLE_TAG", 0, false};
  w.topic_config_table["TBW102"] = {"TBW102", 8, 8, 7, "SINGLE_TAG", 0, false};
  b.filter_server_list = {"fs:1"};
  expect_round_trip(b);
  const std::string text = to_string(b.encode());
  EXPECT_EQ(text.rfind(R"({"topicConfigSerializeWrapper":{"topicConfigTable":{"T":{"topicName":"T",)", 0), 0u) << text;
  EXPECT_NE(text.find(R"("dataVersion":{"counter":3,"timestamp":1700000000000})"), std::string::npos);
  EXPECT_NE(text.find(R"("filterServerList":["fs:1"])"), std::string::npos);
}

// RocketMQ 5's DataVersion.stateVersion (controller mode: the master epoch) is read from a 5.x
// broker and written only when set, so a RocketMQ 4 NameServer sees 4.x's form otherwise.
TEST(RegisterBrokerBodyJson, StateVersionIsReadAndWrittenOnlyWhenSet) {
  auto b = RegisterBrokerBody::decode(to_bytes(
      R"({"filterServerList":[],"topicConfigSerializeWrapper":{"dataVersion":{"counter":5,"stateVersion":3,)"
      R"("timestamp":1690000000000},"topicConfigTable":{}}})"));
  ASSERT_TRUE(b.ok()) << b.error().to_string();
  EXPECT_EQ(b->topic_config_serialize_wrapper.data_version, (DataVersion{5, 1690000000000, 3}));
  expect_round_trip(*b);
  EXPECT_NE(to_string(b->encode()).find(R"("dataVersion":{"counter":5,"stateVersion":3,"timestamp":1690000000000})"),
            std::string::npos);
  b->topic_config_serialize_wrapper.data_version.state_version = 0;
  EXPECT_EQ(to_string(b->encode()).find("stateVersion"), std::string::npos);
}

TEST(RegisterBrokerBodyJson, ReadsJavaOutput) {
  auto b = RegisterBrokerBody::decode(to_bytes(
      R"({"filterServerList":[],"topicConfigSerializeWrapper":{"dataVersion":{"counter":2,)"
      R"("timestamp":1690000000000},"topicConfigTable":{"TopicTest":{"order":false,"perm":6,)"
      R"("readQueueNums":4,"topicFilterType":"SINGLE_TAG","topicName":"TopicTest",)"
      R"("topicSysFlag":0,"writeQueueNums":4}}}})"));
  ASSERT_TRUE(b.ok()) << b.error().to_string();
  const auto& w = b->topic_config_serialize_wrapper;
  EXPECT_EQ(w.data_version.counter, 2);
  EXPECT_EQ(w.data_version.timestamp, 1690000000000);
  ASSERT_EQ(w.topic_config_table.count("TopicTest"), 1u);
  EXPECT_EQ(w.topic_config_table.at("TopicTest").write_queue_nums, 4);
  expect_error<RegisterBrokerBody>(R"({"filterServerList":[]})",
                                   "RegisterBrokerBody.topicConfigSerializeWrapper: missing");
  expect_error<RegisterBrokerBody>(
      R"({"topicConfigSerializeWrapper":{"topicConfigTable":{"T":{"topicName":"T"}}}})",
      "RegisterBrokerBody.topicConfigSerializeWrapper.topicConfigTable[\"T\"].readQueueNums: missing");
}

TEST(ClusterInfoBody, RoundTripAndFastjsonKeys) {
  ClusterInfo c;
  c.broker_addr_table["b"] = {"c", "b", {{0, "10.0.0.1:10911"}}};
  c.cluster_addr_table["c"] = {"b"};
  expect_round_trip(c);
  auto java = ClusterInfo::decode(to_bytes(
      R"({"brokerAddrTable":{"b":{"brokerAddrs":{0:"10.0.0.1:10911"},"brokerName":"b",)"
      R"("cluster":"c"}},"clusterAddrTable":{"c":["b"]}})"));
  ASSERT_TRUE(java.ok()) << java.error().to_string();
  EXPECT_EQ(*java, c);
}

TEST(BrokerLiveTableBody, RoundTripAndDefensiveReading) {
  BrokerLiveTable t;
  t.brokers["10.0.0.1:10911"] = {2104, "10.0.0.1:10912"};
  t.brokers["10.0.0.2:10911"] = {0, ""};
  expect_round_trip(t);
  EXPECT_EQ(to_string(BrokerLiveTable{{{"a:1", {5, "a:2"}}}}.encode()),
            R"({"brokerLiveTable":{"a:1":{"ageMillis":5,"haServerAddr":"a:2"}}})");
  expect_error<BrokerLiveTable>(R"({})", "BrokerLiveTable.brokerLiveTable: missing");
  expect_error<BrokerLiveTable>(R"({"brokerLiveTable":{"a:1":{"ageMillis":-3}}})", "ageMillis");
  expect_error<BrokerLiveTable>(R"({"brokerLiveTable":{"a:1":7}})", "BrokerLiveTable.brokerLiveTable[\"a:1\"]: not a JSON object");
}

TEST(EpochAcksBody, RoundTripAndDefensiveReading) {
  EpochAcks a;
  a.last_epoch = 3;
  a.acked_by_epoch = {{1, 1200}, {3, 41}};
  expect_round_trip(a);
  EXPECT_EQ(to_string(a.encode()), R"({"lastEpoch":3,"ackedByEpoch":{"1":1200,"3":41}})");
  expect_round_trip(EpochAcks{});
  expect_error<EpochAcks>(R"({})", "EpochAcks.lastEpoch: missing");
  expect_error<EpochAcks>(R"({"lastEpoch":1,"ackedByEpoch":{"x":1}})", "key \"x\" is not an epoch number");
  expect_error<EpochAcks>(R"({"lastEpoch":1,"ackedByEpoch":{"2":-1}})", "EpochAcks.ackedByEpoch[\"2\"]: not a count");
  expect_error<EpochAcks>(R"({"lastEpoch":1,"ackedByEpoch":[1]})", "ackedByEpoch");
}

TEST(SmallBodies, RoundTrip) {
  expect_round_trip(TopicList{{"A", "B"}, std::nullopt});
  expect_round_trip(TopicList{{}, "10.0.0.1:10911"});
  EXPECT_EQ(to_string(TopicList{{"A"}, std::nullopt}.encode()), R"({"topicList":["A"]})");
  expect_round_trip(ConsumerIdList{{"c1", "c2"}});
  EXPECT_EQ(to_string(ConsumerIdList{{"c1"}}.encode()), R"({"consumerIdList":["c1"]})");
  expect_error<ConsumerIdList>(R"({"consumerIdList":[1]})", "ConsumerIdList.consumerIdList[0]: not a string");
}

TEST(LockBatchBodies, RoundTripAndNames) {
  LockBatchRequestBody req{"G", "10.0.0.9@1", false, {{"T", "b", QueueId(0)}, {"T", "b", QueueId(1)}}};
  expect_round_trip(req);
  EXPECT_EQ(to_string(req.encode()),
            R"({"consumerGroup":"G","clientId":"10.0.0.9@1","onlyThisBroker":false,"mqSet":)"
            R"([{"topic":"T","brokerName":"b","queueId":0},{"topic":"T","brokerName":"b","queueId":1}]})");
  LockBatchResponseBody resp{{{"T", "b", QueueId(1)}}};
  expect_round_trip(resp);
  EXPECT_EQ(to_string(resp.encode()),
            R"({"lockOKMQSet":[{"topic":"T","brokerName":"b","queueId":1}]})");
  expect_error<LockBatchRequestBody>(R"({"consumerGroup":"G","clientId":"c","mqSet":[{"topic":"T"}]})",
                                     "LockBatchRequestBody.mqSet[0].brokerName: missing");
}

TEST(KvTableBody, RoundTripShapeAndFastjsonValues) {
  KvTable t;
  t.table = {{"putTps", "1.00 2.00 3.00"}, {"commitLogMaxOffset", "4096"}};
  expect_round_trip(t);
  EXPECT_EQ(to_string(t.encode()), R"({"table":{"commitLogMaxOffset":"4096","putTps":"1.00 2.00 3.00"}})");
  // fastjson may write numbers and booleans unquoted: read as their text.
  auto r = KvTable::decode(to_bytes(R"({"table":{"a":12,"b":true,"c":"x"}})"));
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(r->get("a"), "12");
  EXPECT_EQ(r->get("b"), "true");
  EXPECT_EQ(r->get("c"), "x");
  EXPECT_EQ(r->get("d"), std::nullopt);
  expect_error<KvTable>(R"({"tabel":{}})", "KVTable.table: missing");
  expect_error<KvTable>(R"({"table":{"k":[1]}})", "KVTable.table.k: not a string");
}

// GET_BROKER_HA_STATUS: RocketMQ 5's HARuntimeInfo names, Ferry's fields beside them.
TEST(HaRuntimeInfoBody, RoundTripAndRocketMqNames) {
  HaRuntimeInfo m;
  m.master = true;
  m.master_commit_log_max_offset = PhysicalOffset(4096);
  m.in_sync_slave_nums = 1;
  HaConnectionRuntimeInfo c;
  c.addr = "10.0.0.2:40112";
  c.slave_ack_offset = PhysicalOffset(1024);
  c.diff_bytes = 3072;
  c.in_sync = true;
  c.transfer_from_where = PhysicalOffset(2048);
  c.diff_ms = 1500;
  c.since_last_report_ms = 200;
  m.ha_connection_info = {c};
  m.broker_role = "SYNC_MASTER";
  m.links_dropped = 2;
  m.diverged_links = 1;
  m.last_drop = "10.0.0.2:40000: silent for 20000 ms";
  expect_round_trip(m);
  const std::string text = to_string(m.encode());
  for (const char* key : {"\"master\":true", "\"masterCommitLogMaxOffset\":4096", "\"inSyncSlaveNums\":1",
                          "\"addr\":\"10.0.0.2:40112\"", "\"slaveAckOffset\":1024", "\"diff\":3072", "\"inSync\":true",
                          "\"transferFromWhere\":2048", "\"haClientRuntimeInfo\":{"}) {
    EXPECT_NE(text.find(key), std::string::npos) << key << " in " << text;
  }
  HaRuntimeInfo s;
  s.ha_client_runtime_info.master_addr = "10.0.0.1:10912";
  s.ha_client_runtime_info.max_offset = PhysicalOffset(777);
  s.ha_client_runtime_info.last_read_timestamp_ms = 1767225600000;
  s.ha_client_runtime_info.connected = true;
  s.ha_client_runtime_info.local_addr = "10.0.0.2:40112";
  s.ha_client_runtime_info.reported_offset = PhysicalOffset(700);
  s.ha_client_runtime_info.links = 3;
  s.ha_client_runtime_info.bytes = 777;
  s.broker_role = "SLAVE";
  expect_round_trip(s);
  EXPECT_NE(to_string(s.encode()).find("\"masterAddr\":\"10.0.0.1:10912\",\"maxOffset\":777,\"lastReadTimestamp\":"),
            std::string::npos)
      << to_string(s.encode());
}

TEST(HaRuntimeInfoBody, ReadsRocketMqFiveOutput) {
  // fastjson's output of a RocketMQ 5 master (sorted keys, fields Ferry does not measure).
  auto r = HaRuntimeInfo::decode(to_bytes(
      R"({"haClientRuntimeInfo":{"isActivated":false,"lastReadTimestamp":0,"lastWriteTimestamp":0,)"
      R"("masterFlushOffset":0,"maxOffset":0,"transferredByteInSecond":0},"haConnectionInfo":[{"addr":)"
      R"("10.0.0.2:51234","diff":0,"inSync":true,"slaveAckOffset":8192,"transferFromWhere":8192,)"
      R"("transferredByteInSecond":0}],"inSyncSlaveNums":1,"master":true,"masterCommitLogMaxOffset":8192})"));
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_TRUE(r->master);
  EXPECT_EQ(r->master_commit_log_max_offset, PhysicalOffset(8192));
  ASSERT_EQ(r->ha_connection_info.size(), 1u);
  EXPECT_EQ(r->ha_connection_info[0].addr, "10.0.0.2:51234");
  EXPECT_EQ(r->ha_connection_info[0].slave_ack_offset, PhysicalOffset(8192));
  EXPECT_TRUE(r->ha_connection_info[0].in_sync);
  EXPECT_EQ(r->ha_client_runtime_info.master_addr, "");
  expect_error<HaRuntimeInfo>(R"({"master":"maybe"})", "HARuntimeInfo.master");
  expect_error<HaRuntimeInfo>(R"({"master":true,"haConnectionInfo":[{"slaveAckOffset":"x"}]})",
                              "HARuntimeInfo.haConnectionInfo[0].slaveAckOffset");
}

// BATCH_ACK_MESSAGE's body as RocketMQ 5's clients write it with fastjson: short keys, the
// acknowledged offsets as a base64 BitSet relative to "so".
TEST(BatchAckMessageRequestBody, ReadsRocketMqsBodyAndWritesItBack) {
  const std::string java =
      R"({"acks":[{"b":"Kg==","c":"GID_x","it":60000,"pt":1700000000000,"q":2,"r":"0","rq":3,"so":100,)"
      R"("t":"TopicA"}],"brokerName":"broker-a"})";
  auto body = BatchAckMessageRequestBody::decode(to_bytes(java));
  ASSERT_TRUE(body.ok()) << body.error().to_string();
  EXPECT_EQ(body->broker_name, "broker-a");
  ASSERT_EQ(body->acks.size(), 1u);
  const BatchAck& a = body->acks[0];
  EXPECT_EQ(a.consumer_group, "GID_x");
  EXPECT_EQ(a.topic, "TopicA");
  EXPECT_EQ(a.retry, PopRetry::none);
  EXPECT_EQ(a.start_offset, 100);
  EXPECT_EQ(a.queue_id, 2);
  EXPECT_EQ(a.revive_qid, 3);
  EXPECT_EQ(a.pop_time, 1'700'000'000'000);
  EXPECT_EQ(a.invisible_time, 60'000);
  EXPECT_EQ(a.offsets, (std::vector<std::int64_t>{101, 103, 105}));
  auto again = BatchAckMessageRequestBody::decode(body->encode());
  ASSERT_TRUE(again.ok()) << again.error().to_string();
  EXPECT_EQ(*again, *body);
  EXPECT_NE(to_string(body->encode()).find(R"("b":"Kg==")"), std::string::npos) << to_string(body->encode());
}

TEST(BatchAckMessageRequestBody, RefusesABadFlagOrBitsetNamingTheField) {
  auto detail = [](std::string_view json) {
    auto b = BatchAckMessageRequestBody::decode(to_bytes(std::string(json)));
    return b.ok() ? std::string("decoded") : b.error().detail;
  };
  EXPECT_NE(detail(R"({"acks":[{"b":"Kg==","c":"G","it":1,"pt":1,"q":0,"r":"7","rq":0,"so":0,"t":"T"}]})")
                .find("acks[0].r"),
            std::string::npos);
  EXPECT_NE(detail(R"({"acks":[{"b":"K?==","c":"G","it":1,"pt":1,"q":0,"r":"0","rq":0,"so":0,"t":"T"}]})")
                .find("acks[0].b"),
            std::string::npos);
  EXPECT_NE(detail(R"({"acks":[{"c":"G","it":1,"pt":1,"q":0,"r":"0","rq":0,"so":0,"t":"T"}]})").find("b"),
            std::string::npos);
}

}  // namespace
}  // namespace ferry::remoting::body
