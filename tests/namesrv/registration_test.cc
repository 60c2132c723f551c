// REGISTER_BROKER / UNREGISTER_BROKER and the route, cluster and topic queries, in the simulator:
// a NameServer node and client nodes sending real frames.
#include "tests/namesrv/namesrv_fixture.h"

namespace ferry::namesrv::testing {
namespace {

TEST_F(NamesrvTest, RegisteredTopicsHaveExactRoutes) {
  const NodeId a = add_client("broker-a");
  BrokerSpec spec = broker_on(a, "broker-a", {topic("T1", 4), topic("T2", 8, 4)});
  Reply reg = register_broker(a, spec);
  EXPECT_FALSE(reg.fields.contains("masterAddr")) << "a master gets no masterAddr";
  EXPECT_TRUE(reg.body.empty()) << reg.body_text();

  auto t1 = route(a, "T1");
  ASSERT_TRUE(t1.has_value());
  EXPECT_EQ(t1->queue_datas, std::vector<body::QueueData>{queue("broker-a", 4)});
  EXPECT_EQ(t1->broker_datas,
            std::vector<body::BrokerData>{broker_data("DefaultCluster", "broker-a", {{0, spec.addr}})});
  EXPECT_TRUE(t1->filter_server_table.empty());
  auto t2 = route(a, "T2");
  ASSERT_TRUE(t2.has_value());
  EXPECT_EQ(t2->queue_datas, std::vector<body::QueueData>{queue("broker-a", 8, 4)});
}

TEST_F(NamesrvTest, RouteListsBrokersByNameWhateverTheRegistrationOrder) {
  const NodeId b = add_client("broker-b");
  const NodeId a = add_client("broker-a");
  BrokerSpec sb = broker_on(b, "broker-b", {topic("T", 2)});
  sb.filter_servers = {"10.0.0.9:30000"};
  BrokerSpec sa = broker_on(a, "broker-a", {topic("T", 4)});
  register_broker(b, sb);
  register_broker(a, sa);
  auto t = route(a, "T");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->queue_datas, (std::vector<body::QueueData>{queue("broker-a", 4), queue("broker-b", 2)}));
  EXPECT_EQ(t->broker_datas, (std::vector<body::BrokerData>{broker_data("DefaultCluster", "broker-a", {{0, sa.addr}}),
                                                            broker_data("DefaultCluster", "broker-b", {{0, sb.addr}})}));
  EXPECT_EQ(t->filter_server_table, (std::map<std::string, std::vector<std::string>>{{sb.addr, {"10.0.0.9:30000"}}}));
}

TEST_F(NamesrvTest, SlaveGetsMasterAddressesAndDoesNotChangeRoutes) {
  const NodeId m = add_client("master");
  const NodeId s = add_client("slave");
  BrokerSpec master = broker_on(m, "broker-a", {topic("T1", 4)});
  BrokerSpec slave = broker_on(s, "broker-a", {topic("T1", 16), topic("OnlyOnSlave", 4)});
  slave.id = 1;
  register_broker(m, master);
  Reply reply = register_broker(s, slave);
  const std::string* master_addr = reply.fields.find("masterAddr");
  const std::string* ha_addr = reply.fields.find("haServerAddr");
  ASSERT_NE(master_addr, nullptr);
  ASSERT_NE(ha_addr, nullptr);
  EXPECT_EQ(*master_addr, master.addr);
  EXPECT_EQ(*ha_addr, master.ha_addr);

  auto t1 = route(s, "T1");
  ASSERT_TRUE(t1.has_value());
  EXPECT_EQ(t1->queue_datas, std::vector<body::QueueData>{queue("broker-a", 4)}) << "the slave's topics are ignored";
  EXPECT_EQ(t1->broker_datas, std::vector<body::BrokerData>{broker_data("DefaultCluster", "broker-a",
                                                                        {{0, master.addr}, {1, slave.addr}})});
  expect_code(s, route_request("OnlyOnSlave"), resp::TOPIC_NOT_EXIST);
}

TEST_F(NamesrvTest, SlaveWithoutLiveMasterGetsNoMasterAddress) {
  const NodeId s = add_client("slave");
  BrokerSpec slave = broker_on(s, "broker-a", {topic("T1", 4)});
  slave.id = 1;
  Reply reply = register_broker(s, slave);
  EXPECT_FALSE(reply.fields.contains("masterAddr"));
  EXPECT_FALSE(reply.fields.contains("haServerAddr"));
}

TEST_F(NamesrvTest, SameDataVersionDoesNotRewriteRoutesANewOneDoes) {
  const NodeId a = add_client("broker-a");
  BrokerSpec spec = broker_on(a, "broker-a", {topic("T1", 4)});
  register_broker(a, spec);
  // Same dataVersion, different topic configs: a heartbeat, routes stay.
  spec.topics = {topic("T1", 8), topic("T2", 2)};
  register_broker(a, spec);
  auto t1 = route(a, "T1");
  ASSERT_TRUE(t1.has_value());
  EXPECT_EQ(t1->queue_datas, std::vector<body::QueueData>{queue("broker-a", 4)});
  expect_code(a, route_request("T2"), resp::TOPIC_NOT_EXIST);
  // A new dataVersion: applied.
  spec.version.counter = 2;
  register_broker(a, spec);
  t1 = route(a, "T1");
  ASSERT_TRUE(t1.has_value());
  EXPECT_EQ(t1->queue_datas, std::vector<body::QueueData>{queue("broker-a", 8)});
  EXPECT_TRUE(route(a, "T2").has_value());
}

TEST_F(NamesrvTest, BodyCrcMismatchIsRefusedAndRegistersNothing) {
  const NodeId a = add_client("broker-a");
  Reply r = expect_code(a, register_request(broker_on(a, "broker-a", {topic("T1", 4)}), /*correct_crc=*/false),
                        resp::SYSTEM_ERROR);
  EXPECT_EQ(r.remark, "crc32 not match");
  EXPECT_TRUE(cluster_info(a).broker_addr_table.empty());
  expect_code(a, route_request("T1"), resp::TOPIC_NOT_EXIST);
}

TEST_F(NamesrvTest, UnknownTopicIsTopicNotExistWithRocketMqRemark) {
  const NodeId c = add_client("client");
  Reply r = expect_code(c, route_request("Nope"), resp::TOPIC_NOT_EXIST);
  EXPECT_EQ(r.remark,
            "No topic route info in name server for the topic: Nope\n"
            "See http://rocketmq.apache.org/docs/faq/ for further details.");
}

TEST_F(NamesrvTest, ClusterInfoAndTopicLists) {
  const NodeId a = add_client("broker-a");
  const NodeId b = add_client("broker-b");
  const NodeId c = add_client("admin");
  BrokerSpec sa = broker_on(a, "broker-a", {topic("Zeta", 4), topic("Alpha", 4)});
  sa.cluster = "c1";
  BrokerSpec sb = broker_on(b, "broker-b", {topic("Beta", 4), topic("Alpha", 2)});
  sb.cluster = "c2";
  register_broker(b, sb);
  register_broker(a, sa);

  body::ClusterInfo info = cluster_info(c);
  EXPECT_EQ(info.broker_addr_table,
            (std::map<std::string, body::BrokerData>{{"broker-a", broker_data("c1", "broker-a", {{0, sa.addr}})},
                                                     {"broker-b", broker_data("c2", "broker-b", {{0, sb.addr}})}}));
  EXPECT_EQ(info.cluster_addr_table,
            (std::map<std::string, std::vector<std::string>>{{"c1", {"broker-a"}}, {"c2", {"broker-b"}}}));

  EXPECT_EQ(topic_list(c, plain_request(rc::GET_ALL_TOPIC_LIST_FROM_NAMESERVER)),
            (std::vector<std::string>{"Alpha", "Beta", "Zeta"}));
  EXPECT_EQ(topic_list(c, plain_request(namesrv_code::GET_TOPICS_BY_CLUSTER, {{"cluster", "c1"}})),
            (std::vector<std::string>{"Alpha", "Zeta"}));
  EXPECT_EQ(topic_list(c, plain_request(namesrv_code::GET_TOPICS_BY_CLUSTER, {{"cluster", "nope"}})),
            std::vector<std::string>{});
}

TEST_F(NamesrvTest, UnregisterRemovesTheBrokerAndItsRoutes) {
  const NodeId a = add_client("broker-a");
  const NodeId b = add_client("broker-b");
  BrokerSpec sa = broker_on(a, "broker-a", {topic("Shared", 4), topic("OnlyA", 4)});
  BrokerSpec sb = broker_on(b, "broker-b", {topic("Shared", 4)});
  register_broker(a, sa);
  register_broker(b, sb);
  expect_code(a, unregister_request(sa), resp::SUCCESS);

  expect_code(b, route_request("OnlyA"), resp::TOPIC_NOT_EXIST);
  auto shared = route(b, "Shared");
  ASSERT_TRUE(shared.has_value());
  EXPECT_EQ(shared->queue_datas, std::vector<body::QueueData>{queue("broker-b", 4)});
  body::ClusterInfo info = cluster_info(b);
  EXPECT_EQ(info.broker_addr_table.count("broker-a"), 0u);
  EXPECT_EQ(info.cluster_addr_table, (std::map<std::string, std::vector<std::string>>{{"DefaultCluster", {"broker-b"}}}));
  EXPECT_EQ(name_server().routes().live_brokers().count(sa.addr), 0u);
}

TEST_F(NamesrvTest, UnregisteringASlaveKeepsTheMastersRoutes) {
  const NodeId m = add_client("master");
  const NodeId s = add_client("slave");
  BrokerSpec master = broker_on(m, "broker-a", {topic("T", 4)});
  BrokerSpec slave = broker_on(s, "broker-a");
  slave.id = 1;
  register_broker(m, master);
  register_broker(s, slave);
  expect_code(s, unregister_request(slave), resp::SUCCESS);
  auto t = route(m, "T");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->broker_datas, std::vector<body::BrokerData>{broker_data("DefaultCluster", "broker-a", {{0, master.addr}})});
}

// Controller mode: a slave elected master registers as id 0 before the old master (which gave
// the role up) unregisters, also as id 0. The unregistration removes the old master's address,
// not whoever holds id 0 now (controller-swarm seed 818: consumers lost the group's master from
// their routes and kept pulling from a slave).
TEST_F(NamesrvTest, AnOldMastersUnregistrationKeepsTheNewMaster) {
  const NodeId old_node = add_client("old-master");
  const NodeId new_node = add_client("new-master");
  BrokerSpec old_master = broker_on(old_node, "broker-a", {topic("T", 4)});
  BrokerSpec new_master = broker_on(new_node, "broker-a", {topic("T", 4)});
  new_master.id = 1;
  register_broker(old_node, old_master);
  register_broker(new_node, new_master);
  new_master.id = 0;  // elected
  register_broker(new_node, new_master);
  expect_code(old_node, unregister_request(old_master), resp::SUCCESS);
  auto t = route(new_node, "T");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->broker_datas,
            std::vector<body::BrokerData>{broker_data("DefaultCluster", "broker-a", {{0, new_master.addr}})});
  EXPECT_EQ(name_server().routes().live_brokers().count(new_master.addr), 1u);
}

// Controller mode (RocketMQ 5): a broker's DataVersion carries the master epoch of its last role
// change as its stateVersion. An old master's registration sent before it learned of the new
// epoch may arrive after the new master's: it is ignored (and its address leaves the live
// table), so the route keeps the new master; the old master's unregistration then removes
// nothing of it. Before this, the stale registration took id 0 back and the unregistration that
// followed left the group without a master for a registration interval (controller-master-
// isolated under swarm seed 30: 30 s).
TEST_F(NamesrvTest, AnOldMastersStaleRegistrationDoesNotReplaceTheNewMaster) {
  const NodeId old_node = add_client("old-master");
  const NodeId new_node = add_client("new-master");
  BrokerSpec old_master = broker_on(old_node, "broker-a", {topic("T", 4)});
  old_master.version.state_version = 2;  // master of epoch 2
  BrokerSpec new_master = broker_on(new_node, "broker-a", {topic("T", 4)});
  new_master.version.state_version = 3;  // elected in epoch 3
  register_broker(old_node, old_master);
  register_broker(new_node, new_master);
  register_broker(old_node, old_master);  // late: sent before the old master learned of epoch 3
  auto t = route(new_node, "T");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->broker_datas,
            std::vector<body::BrokerData>{broker_data("DefaultCluster", "broker-a", {{0, new_master.addr}})});
  EXPECT_EQ(name_server().routes().live_brokers().count(old_master.addr), 0u) << "the ignored address is not live";
  expect_code(old_node, unregister_request(old_master), resp::SUCCESS);
  t = route(new_node, "T");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->broker_datas,
            std::vector<body::BrokerData>{broker_data("DefaultCluster", "broker-a", {{0, new_master.addr}})});
  // The old master, now a slave of epoch 3, registers under its own id.
  old_master.id = 1;
  register_broker(old_node, old_master);
  t = route(new_node, "T");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->broker_datas, std::vector<body::BrokerData>{broker_data("DefaultCluster", "broker-a",
                                                                       {{0, new_master.addr}, {1, old_master.addr}})});
}

// Without state versions (RocketMQ 4 brokers: 0 everywhere) the last registration wins, as before.
TEST_F(NamesrvTest, WithoutStateVersionsTheLastMasterRegistrationWins) {
  const NodeId a = add_client("first");
  const NodeId b = add_client("second");
  BrokerSpec first = broker_on(a, "broker-a", {topic("T", 4)});
  BrokerSpec second = broker_on(b, "broker-a", {topic("T", 4)});
  register_broker(a, first);
  register_broker(b, second);
  auto t = route(b, "T");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->broker_datas, std::vector<body::BrokerData>{broker_data("DefaultCluster", "broker-a", {{0, second.addr}})});
}

TEST_F(NamesrvTest, PromotedSlaveKeepsOneEntryPerAddress) {
  const NodeId s = add_client("slave");
  BrokerSpec spec = broker_on(s, "broker-a", {topic("T", 4)});
  spec.id = 1;
  register_broker(s, spec);
  spec.id = 0;  // promoted: the same address now registers as master
  register_broker(s, spec);
  auto t = route(s, "T");
  ASSERT_TRUE(t.has_value()) << "a new master's first registration applies its topics";
  EXPECT_EQ(t->broker_datas, std::vector<body::BrokerData>{broker_data("DefaultCluster", "broker-a", {{0, spec.addr}})});
}

TEST_F(NamesrvTest, DeleteTopicInNamesrv) {
  const NodeId a = add_client("broker-a");
  const NodeId b = add_client("broker-b");
  BrokerSpec sa = broker_on(a, "broker-a", {topic("T", 4), topic("U", 4)});
  sa.cluster = "c1";
  BrokerSpec sb = broker_on(b, "broker-b", {topic("T", 4)});
  sb.cluster = "c2";
  register_broker(a, sa);
  register_broker(b, sb);
  // Only the c1 part of T.
  expect_code(a, plain_request(namesrv_code::DELETE_TOPIC_IN_NAMESRV, {{"topic", "T"}, {"clusterName", "c1"}}),
              resp::SUCCESS);
  auto t = route(a, "T");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->queue_datas, std::vector<body::QueueData>{queue("broker-b", 4)});
  // All of U.
  expect_code(a, plain_request(namesrv_code::DELETE_TOPIC_IN_NAMESRV, {{"topic", "U"}}), resp::SUCCESS);
  expect_code(a, route_request("U"), resp::TOPIC_NOT_EXIST);
  // A heartbeat with the same dataVersion does not bring it back.
  register_broker(a, sa);
  expect_code(a, route_request("U"), resp::TOPIC_NOT_EXIST);
}

TEST_F(NamesrvTest, FullTopicTableRefusesTheRegistrationWhole) {
  NameServerConfig config;
  config.route_limits.topics_max = 2;
  make_cluster(config);
  const NodeId a = add_client("broker-a");
  Reply r = expect_code(a, register_request(broker_on(a, "broker-a", {topic("A", 1), topic("B", 1), topic("C", 1)})),
                        resp::SYSTEM_ERROR);
  EXPECT_NE(r.remark.find("topicQueueTable"), std::string::npos) << r.remark;
  EXPECT_TRUE(cluster_info(a).broker_addr_table.empty()) << "nothing of a refused registration stays";
  register_broker(a, broker_on(a, "broker-a", {topic("A", 1), topic("B", 1)}));
}

TEST_F(NamesrvTest, FullBrokerTableRefusesNewBrokersOnly) {
  NameServerConfig config;
  config.route_limits.broker_addrs_max = 1;
  make_cluster(config);
  const NodeId a = add_client("broker-a");
  const NodeId b = add_client("broker-b");
  register_broker(a, broker_on(a, "broker-a"));
  Reply r = expect_code(b, register_request(broker_on(b, "broker-b")), resp::SYSTEM_ERROR);
  EXPECT_NE(r.remark.find("brokerLiveTable"), std::string::npos) << r.remark;
  register_broker(a, broker_on(a, "broker-a"));  // a known broker's heartbeat still works
}

TEST_F(NamesrvTest, SameSeedSameTrace) {
  auto scenario = [this] {
    const NodeId a = add_client("broker-a");
    const NodeId b = add_client("broker-b");
    register_broker(a, broker_on(a, "broker-a", {topic("T", 4)}));
    register_broker(b, broker_on(b, "broker-b", {topic("T", 4)}));
    Reply info = expect_code(a, plain_request(rc::GET_BROKER_CLUSTER_INFO), resp::SUCCESS);
    cluster().kill(b);
    run_for(std::chrono::seconds(1));
    Reply route_reply = expect_code(a, route_request("T"), resp::SUCCESS);
    return std::make_pair(cluster().world().trace_hash(), info.body_text() + route_reply.body_text());
  };
  make_cluster(NameServerConfig{}, 7);
  auto first = scenario();
  make_cluster(NameServerConfig{}, 7);
  auto second = scenario();
  EXPECT_EQ(first, second);
}

}  // namespace
}  // namespace ferry::namesrv::testing
