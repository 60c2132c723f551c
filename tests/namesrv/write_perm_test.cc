// WIPE_WRITE_PERM_OF_BROKER (205) and ADD_WRITE_PERM_OF_BROKER (327): the broker's queue data of
// every topic loses / regains the write bit, the reply header counts the topics, the change
// holds until the broker's topic config changes, and a missing brokerName is named.
#include "remoting/header/write_perm_header.h"
#include "tests/namesrv/namesrv_fixture.h"

namespace ferry::namesrv::testing {
namespace {

RemotingCommand perm_request(std::int32_t code, std::string broker_name) {
  return plain_request(code, remoting::WritePermOfBrokerRequestHeader{std::move(broker_name)}.to_fields());
}

std::int32_t perm_of(const std::optional<body::TopicRouteData>& route, const std::string& broker) {
  EXPECT_TRUE(route.has_value());
  if (!route) return -1;
  for (const auto& q : route->queue_datas) {
    if (q.broker_name == broker) return q.perm;
  }
  ADD_FAILURE() << "no queue data of " << broker;
  return -1;
}

TEST_F(NamesrvTest, WipeAndAddWritePermCountTopicsAndChangeRoutes) {
  const NodeId a = add_client("broker-a");
  const NodeId b = add_client("broker-b");
  register_broker(a, broker_on(a, "broker-a", {topic("T", 4), topic("U", 2, 7)}));
  register_broker(b, broker_on(b, "broker-b", {topic("T", 4)}));

  Reply wiped = expect_code(a, perm_request(rc::WIPE_WRITE_PERM_OF_BROKER, "broker-a"), resp::SUCCESS);
  auto wh = remoting::WipeWritePermOfBrokerResponseHeader::from_fields(wiped.fields);
  ASSERT_TRUE(wh.ok()) << wh.error().to_string();
  EXPECT_EQ(wh->wipe_topic_count, 2);
  EXPECT_EQ(perm_of(route(a, "T"), "broker-a"), 4);
  EXPECT_EQ(perm_of(route(a, "U"), "broker-a"), 5);  // 7 without the write bit
  EXPECT_EQ(perm_of(route(a, "T"), "broker-b"), 6);  // another broker is untouched

  Reply added = expect_code(a, perm_request(rc::ADD_WRITE_PERM_OF_BROKER, "broker-a"), resp::SUCCESS);
  auto ah = remoting::AddWritePermOfBrokerResponseHeader::from_fields(added.fields);
  ASSERT_TRUE(ah.ok()) << ah.error().to_string();
  EXPECT_EQ(ah->add_topic_count, 2);
  EXPECT_EQ(perm_of(route(a, "T"), "broker-a"), 6);
  EXPECT_EQ(perm_of(route(a, "U"), "broker-a"), 6);  // RocketMQ sets read|write, dropping inherit

  Reply unknown = expect_code(a, perm_request(rc::WIPE_WRITE_PERM_OF_BROKER, "broker-x"), resp::SUCCESS);
  EXPECT_EQ(unknown.fields.get("wipeTopicCount"), std::optional<std::string>("0"));
}

TEST_F(NamesrvTest, WipedWritePermLastsUntilTheBrokerTopicConfigChanges) {
  const NodeId a = add_client("broker-a");
  BrokerSpec spec = broker_on(a, "broker-a", {topic("T", 4)});
  register_broker(a, spec);
  expect_code(a, perm_request(rc::WIPE_WRITE_PERM_OF_BROKER, "broker-a"), resp::SUCCESS);
  register_broker(a, spec);  // the same dataVersion: the queue data stays as it is
  EXPECT_EQ(perm_of(route(a, "T"), "broker-a"), 4);
}

TEST_F(NamesrvTest, WritePermRequestsNameAMissingBrokerName) {
  const NodeId c = add_client("admin");
  for (std::int32_t code : {rc::WIPE_WRITE_PERM_OF_BROKER, rc::ADD_WRITE_PERM_OF_BROKER}) {
    Reply r = expect_code(c, plain_request(code), resp::SYSTEM_ERROR);
    EXPECT_NE(r.remark.find("brokerName"), std::string::npos) << r.remark;
  }
}

}  // namespace
}  // namespace ferry::namesrv::testing
