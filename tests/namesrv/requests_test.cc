// KV config requests, and bad input: missing or malformed header fields, malformed bodies,
// unsupported codes. Bad input gets an error reply naming what is wrong and never a crash.
#include "tests/namesrv/namesrv_fixture.h"

namespace ferry::namesrv::testing {
namespace {

RemotingCommand put_kv(std::string ns, std::string key, std::string value) {
  return plain_request(rc::PUT_KV_CONFIG, remoting::PutKvConfigRequestHeader{ns, key, value}.to_fields());
}
RemotingCommand get_kv(std::string ns, std::string key) {
  return plain_request(rc::GET_KV_CONFIG, remoting::GetKvConfigRequestHeader{ns, key}.to_fields());
}
RemotingCommand delete_kv(std::string ns, std::string key) {
  return plain_request(rc::DELETE_KV_CONFIG, remoting::DeleteKvConfigRequestHeader{ns, key}.to_fields());
}

TEST_F(NamesrvTest, KvConfigPutGetDelete) {
  const NodeId c = add_client("admin");
  expect_code(c, put_kv("ns1", "k", "v1"), resp::SUCCESS);
  expect_code(c, put_kv("ns1", "k", "v2"), resp::SUCCESS);  // replaces
  expect_code(c, put_kv("ns1", "a", "x"), resp::SUCCESS);
  Reply got = expect_code(c, get_kv("ns1", "k"), resp::SUCCESS);
  auto header = remoting::GetKvConfigResponseHeader::from_fields(got.fields);
  ASSERT_TRUE(header.ok()) << header.error().to_string();
  EXPECT_EQ(header->value, std::optional<std::string>("v2"));

  Reply list = expect_code(c, plain_request(namesrv_code::GET_KVLIST_BY_NAMESPACE, {{"namespace", "ns1"}}), resp::SUCCESS);
  EXPECT_EQ(list.body_text(), R"({"table":{"a":"x","k":"v2"}})");

  Reply missing = expect_code(c, get_kv("ns1", "nope"), resp::QUERY_NOT_FOUND);
  EXPECT_EQ(missing.remark, "No config item, Namespace: ns1 Key: nope");
  expect_code(c, get_kv("other", "k"), resp::QUERY_NOT_FOUND);

  expect_code(c, delete_kv("ns1", "k"), resp::SUCCESS);
  expect_code(c, get_kv("ns1", "k"), resp::QUERY_NOT_FOUND);
  expect_code(c, delete_kv("ns1", "k"), resp::SUCCESS);  // deleting a missing key is fine
  expect_code(c, delete_kv("ns1", "a"), resp::SUCCESS);
  expect_code(c, plain_request(namesrv_code::GET_KVLIST_BY_NAMESPACE, {{"namespace", "ns1"}}), resp::QUERY_NOT_FOUND);
  EXPECT_EQ(name_server().kv().size(), 0u);
}

TEST_F(NamesrvTest, OrderTopicConfigRidesOnRegistrationAndRoutes) {
  NameServerConfig config;
  config.order_message_enable = true;
  make_cluster(config);
  const NodeId a = add_client("broker-a");
  expect_code(a, put_kv(kOrderTopicConfigNamespace, "T", "broker-a:4"), resp::SUCCESS);
  Reply reg = register_broker(a, broker_on(a, "broker-a", {topic("T", 4)}));
  EXPECT_EQ(reg.body_text(), R"({"table":{"T":"broker-a:4"}})");
  auto t = route(a, "T");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->order_topic_conf, std::optional<std::string>("broker-a:4"));
}

TEST_F(NamesrvTest, KvStoreIsBounded) {
  NameServerConfig config;
  config.kv_limits.entries_max = 2;
  make_cluster(config);
  const NodeId c = add_client("admin");
  expect_code(c, put_kv("n", "a", "1"), resp::SUCCESS);
  expect_code(c, put_kv("n", "b", "2"), resp::SUCCESS);
  Reply full = expect_code(c, put_kv("n", "c", "3"), resp::SYSTEM_ERROR);
  EXPECT_NE(full.remark.find("full"), std::string::npos) << full.remark;
  expect_code(c, put_kv("n", "a", "updated"), resp::SUCCESS);  // replacing needs no room
}

TEST_F(NamesrvTest, KvNamesAndValuesAreBoundedInSize) {
  NameServerConfig config;
  config.kv_limits.value_bytes_max = 100;
  config.kv_limits.total_bytes_max = 2 * 255 + 100 + 20;  // room for one large entry and a bit
  make_cluster(config);
  const NodeId c = add_client("admin");
  Reply big = expect_code(c, put_kv("n", "a", std::string(101, 'v')), resp::SYSTEM_ERROR);
  EXPECT_NE(big.remark.find("value of 101 bytes"), std::string::npos) << big.remark;
  Reply long_key = expect_code(c, put_kv("n", std::string(256, 'k'), "1"), resp::SYSTEM_ERROR);
  EXPECT_NE(long_key.remark.find("key of 256 bytes"), std::string::npos) << long_key.remark;
  Reply empty_ns = expect_code(c, put_kv("", "a", "1"), resp::SYSTEM_ERROR);
  EXPECT_NE(empty_ns.remark.find("namespace of 0 bytes"), std::string::npos) << empty_ns.remark;

  expect_code(c, put_kv("n", "a", std::string(100, 'v')), resp::SUCCESS);
  Reply full = expect_code(c, put_kv(std::string(255, 'N'), std::string(255, 'K'), std::string(100, 'w')), resp::SYSTEM_ERROR);
  EXPECT_NE(full.remark.find("full"), std::string::npos) << full.remark;
  expect_code(c, put_kv("n", "a", "short"), resp::SUCCESS);  // replacing frees the old value's bytes
  expect_code(c, put_kv("n", "b", std::string(100, 'x')), resp::SUCCESS);
}

TEST_F(NamesrvTest, MissingOrMalformedHeaderFieldsAreNamed) {
  const NodeId c = add_client("client");
  BrokerSpec spec = broker_on(c, "broker-a", {topic("T", 4)});

  RemotingCommand no_addr = register_request(spec);
  no_addr.ext_fields.erase("brokerAddr");
  Reply r = expect_code(c, std::move(no_addr), resp::SYSTEM_ERROR);
  EXPECT_NE(r.remark.find("brokerAddr"), std::string::npos) << r.remark;

  RemotingCommand bad_id = register_request(spec);
  bad_id.ext_fields.set("brokerId", "zero");
  r = expect_code(c, std::move(bad_id), resp::SYSTEM_ERROR);
  EXPECT_NE(r.remark.find("brokerId"), std::string::npos) << r.remark;

  RemotingCommand empty_name = register_request(spec);
  empty_name.ext_fields.set("brokerName", "");
  r = expect_code(c, std::move(empty_name), resp::SYSTEM_ERROR);
  EXPECT_NE(r.remark.find("brokerName"), std::string::npos) << r.remark;

  r = expect_code(c, plain_request(rc::GET_ROUTEINFO_BY_TOPIC), resp::SYSTEM_ERROR);
  EXPECT_NE(r.remark.find("topic"), std::string::npos) << r.remark;

  r = expect_code(c, plain_request(rc::UNREGISTER_BROKER, {{"brokerName", "b"}, {"brokerAddr", "1.2.3.4:5"}}),
                  resp::SYSTEM_ERROR);
  EXPECT_NE(r.remark.find("clusterName"), std::string::npos) << r.remark;

  r = expect_code(c, plain_request(rc::PUT_KV_CONFIG, {{"namespace", "n"}, {"key", "k"}}), resp::SYSTEM_ERROR);
  EXPECT_NE(r.remark.find("value"), std::string::npos) << r.remark;

  r = expect_code(c, plain_request(namesrv_code::GET_TOPICS_BY_CLUSTER), resp::SYSTEM_ERROR);
  EXPECT_NE(r.remark.find("cluster"), std::string::npos) << r.remark;

  EXPECT_TRUE(cluster_info(c).broker_addr_table.empty()) << "no bad request registered anything";
}

TEST_F(NamesrvTest, MalformedRegistrationBodiesAreErrorsNotCrashes) {
  const NodeId c = add_client("client");
  BrokerSpec spec = broker_on(c, "broker-a");
  const std::vector<std::string> bodies = {
      "{not json",
      "[]",
      R"({"filterServerList":[]})",
      R"({"topicConfigSerializeWrapper":{"topicConfigTable":{"T":{"readQueueNums":"four"}}},"filterServerList":[]})",
      R"({"topicConfigSerializeWrapper":{"dataVersion":{"counter":"x"}},"filterServerList":[]})",
      std::string("\x00\xff\x10", 3),
  };
  for (const std::string& text : bodies) {
    RemotingCommand req = register_request(spec);
    req.body.assign(text.begin(), text.end());
    req.ext_fields.set("bodyCrc32", std::to_string(body_crc(Bytes(req.body.data(), req.body.size()))));
    Reply r = expect_code(c, std::move(req), resp::SYSTEM_ERROR);
    EXPECT_NE(r.remark.find("RegisterBrokerBody"), std::string::npos) << "body " << text << ": " << r.remark;
  }
  // Compressed bodies are refused with a clear remark.
  RemotingCommand compressed = register_request(spec);
  compressed.ext_fields.set("compressed", "true");
  Reply r = expect_code(c, std::move(compressed), resp::SYSTEM_ERROR);
  EXPECT_NE(r.remark.find("compressed"), std::string::npos) << r.remark;
  // Still serving, and nothing was registered.
  EXPECT_TRUE(cluster_info(c).broker_addr_table.empty());
  register_broker(c, spec);
}

TEST_F(NamesrvTest, EmptyRegistrationBodyRegistersWithoutTopics) {
  const NodeId c = add_client("broker-a");
  RemotingCommand req = register_request(broker_on(c, "broker-a"));
  req.body.clear();
  req.ext_fields.set("bodyCrc32", "0");
  expect_code(c, std::move(req), resp::SUCCESS);
  EXPECT_EQ(cluster_info(c).broker_addr_table.size(), 1u);
  EXPECT_EQ(name_server().routes().topic_count(), 0u);
}

TEST_F(NamesrvTest, UnknownCodeIsNotSupported) {
  const NodeId c = add_client("client");
  expect_code(c, plain_request(rc::SEND_MESSAGE), resp::REQUEST_CODE_NOT_SUPPORTED);
}

TEST_F(NamesrvTest, BinaryHeadersAreServedToo) {
  const NodeId c = add_client("client");
  RemotingCommand req = register_request(broker_on(c, "broker-a", {topic("T", 4)}));
  req.serialize_type = remoting::SerializeType::rocketmq;
  expect_code(c, std::move(req), resp::SUCCESS);
  RemotingCommand get = route_request("T");
  get.serialize_type = remoting::SerializeType::rocketmq;
  expect_code(c, std::move(get), resp::SUCCESS);
}

}  // namespace
}  // namespace ferry::namesrv::testing
