// Broker liveness: the scan drops brokers silent for 120 s; a closed connection drops at once.
#include "tests/namesrv/namesrv_fixture.h"

namespace ferry::namesrv::testing {
namespace {

using std::chrono::seconds;

TEST_F(NamesrvTest, SilentBrokerIsDroppedByTheScan) {
  const NodeId a = add_client("broker-a");
  const NodeId admin = add_client("admin");
  BrokerSpec spec = broker_on(a, "broker-a", {topic("T", 4)});
  register_broker(a, spec);
  const MonoTime registered = now();

  // The scan runs every 10 s; the broker is kept while younger than 120 s.
  run_for(seconds(115));
  EXPECT_TRUE(route(admin, "T").has_value()) << "dropped too early";
  EXPECT_EQ(name_server().routes().live_brokers().count(spec.addr), 1u);

  run_for(seconds(20));  // now > 120 s after the registration, and a scan has run since
  ASSERT_GT(now() - registered, seconds(130));
  EXPECT_EQ(name_server().routes().live_brokers().count(spec.addr), 0u);
  expect_code(admin, route_request("T"), resp::TOPIC_NOT_EXIST);
  EXPECT_TRUE(cluster_info(admin).broker_addr_table.empty());
  EXPECT_FALSE(client(a).connected(name_server().address())) << "the name server closes an expired broker's connection";

  // The broker comes back with its next registration.
  register_broker(a, spec);
  EXPECT_TRUE(route(admin, "T").has_value());
}

TEST_F(NamesrvTest, TheLiveTableSaysHowLongAgoEachBrokerRegistered) {
  const NodeId a = add_client("broker-a");
  const NodeId b = add_client("broker-b");
  const NodeId admin = add_client("admin");
  const BrokerSpec spec_a = broker_on(a, "broker-a", {topic("T", 4)});
  const BrokerSpec spec_b = broker_on(b, "broker-b", {topic("T", 4)});
  auto ms = [](Duration d) { return static_cast<std::int64_t>(to_ms(d)); };
  const MonoTime a_sent = now();
  register_broker(a, spec_a);
  const MonoTime a_done = now();
  run_for(seconds(7));
  const MonoTime b_sent = now();
  register_broker(b, spec_b);
  const MonoTime b_done = now();
  run_for(seconds(3));
  const MonoTime q_sent = now();
  Reply r = expect_code(admin, plain_request(rc::FERRY_GET_BROKER_LIVE_TABLE), resp::SUCCESS);
  const MonoTime q_done = now();
  auto table = remoting::body::BrokerLiveTable::decode(r.body);
  ASSERT_TRUE(table.ok()) << table.error().to_string() << " in " << r.body_text();
  ASSERT_EQ(table->brokers.size(), 2u) << r.body_text();
  // Each registration happened while its request was out, the table was made while the query
  // was: the ages lie between those bounds (about 10 s and 3 s; wider under swarm's latencies).
  const std::int64_t age_a = table->brokers.at(spec_a.addr).age_millis;
  const std::int64_t age_b = table->brokers.at(spec_b.addr).age_millis;
  EXPECT_GE(age_a, ms(q_sent - a_done) - 1) << r.body_text();
  EXPECT_LE(age_a, ms(q_done - a_sent) + 1) << r.body_text();
  EXPECT_GE(age_b, ms(q_sent - b_done) - 1) << r.body_text();
  EXPECT_LE(age_b, ms(q_done - b_sent) + 1) << r.body_text();
  EXPECT_GE(age_a - age_b, 7'000 - ms(b_done - b_sent) - 1) << r.body_text();
  EXPECT_EQ(table->brokers.at(spec_a.addr).ha_server_addr, spec_a.ha_addr) << r.body_text();
  // A broker the scan dropped is gone from the table.
  run_for(seconds(125));
  register_broker(b, spec_b);
  r = expect_code(admin, plain_request(rc::FERRY_GET_BROKER_LIVE_TABLE), resp::SUCCESS);
  table = remoting::body::BrokerLiveTable::decode(r.body);
  ASSERT_TRUE(table.ok()) << table.error().to_string();
  EXPECT_EQ(table->brokers.count(spec_a.addr), 0u) << r.body_text();
  EXPECT_EQ(table->brokers.count(spec_b.addr), 1u) << r.body_text();
}

Task<void> heartbeat(RpcClient* c, std::string ns, RemotingCommand request, int times, int* replies) {
  for (int i = 0; i < times; ++i) {
    auto r = co_await c->invoke(ns, request, seconds(3));
    if (r.ok() && r->code == resp::SUCCESS) ++*replies;
    co_await c->runtime().sleep(seconds(30));
  }
}

TEST_F(NamesrvTest, BrokerRegisteringEvery30sStaysAlive) {
  const NodeId a = add_client("broker-a");
  const NodeId admin = add_client("admin");
  BrokerSpec spec = broker_on(a, "broker-a", {topic("T", 4)});
  int replies = 0;
  auto run = cluster().run_task(a, heartbeat(&client(a), name_server().address(), register_request(spec), 12, &replies),
                              seconds(400));
  ASSERT_TRUE(run.ok()) << run.report.message;
  EXPECT_EQ(replies, 12);
  EXPECT_TRUE(route(admin, "T").has_value()) << "a broker heard from every 30 s is never dropped";
}

TEST_F(NamesrvTest, ClosedConnectionDropsTheBrokerAtOnce) {
  const NodeId a = add_client("broker-a");
  const NodeId b = add_client("broker-b");
  const NodeId admin = add_client("admin");
  register_broker(a, broker_on(a, "broker-a", {topic("T", 4), topic("OnlyA", 4)}));
  register_broker(b, broker_on(b, "broker-b", {topic("T", 4)}));

  cluster().kill(a);
  run_for(seconds(1));  // far less than the scan needs

  EXPECT_EQ(name_server().routes().live_brokers().size(), 1u);
  expect_code(admin, route_request("OnlyA"), resp::TOPIC_NOT_EXIST);
  auto t = route(admin, "T");
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->queue_datas, std::vector<body::QueueData>{queue("broker-b", 4)});
  body::ClusterInfo info = cluster_info(admin);
  EXPECT_EQ(info.cluster_addr_table, (std::map<std::string, std::vector<std::string>>{{"DefaultCluster", {"broker-b"}}}));
}

TEST_F(NamesrvTest, AnOldConnectionClosingDoesNotDropABrokerThatReRegisteredElsewhere) {
  // The broker's registrations move to a new connection (here: from another node, as after a
  // reconnect); the old connection closing later must not drop it.
  const NodeId old_conn = add_client("old-connection");
  const NodeId new_conn = add_client("new-connection");
  const NodeId admin = add_client("admin");
  BrokerSpec spec = broker_on(old_conn, "broker-a", {topic("T", 4)});
  register_broker(old_conn, spec);
  register_broker(new_conn, spec);
  cluster().kill(old_conn);
  run_for(seconds(1));
  EXPECT_TRUE(route(admin, "T").has_value());
  EXPECT_EQ(name_server().routes().live_brokers().count(spec.addr), 1u);
  // The connection it registers on now is the one that counts.
  cluster().kill(new_conn);
  run_for(seconds(1));
  EXPECT_EQ(name_server().routes().live_brokers().count(spec.addr), 0u);
  expect_code(admin, route_request("T"), resp::TOPIC_NOT_EXIST);
}

TEST_F(NamesrvTest, BrokerCutOffByAPartitionExpires) {
  const NodeId a = add_client("broker-a");
  const NodeId admin = add_client("admin");
  BrokerSpec spec = broker_on(a, "broker-a", {topic("T", 4)});
  register_broker(a, spec);
  // The connection stays open (no reset), the broker just goes quiet behind a partition.
  cluster().partition(a, ns_node_);
  run_for(seconds(140));
  EXPECT_EQ(name_server().routes().live_brokers().count(spec.addr), 0u);
  expect_code(admin, route_request("T"), resp::TOPIC_NOT_EXIST);
  cluster().heal(a, ns_node_);
}

TEST_F(NamesrvTest, NameServersDoNotShareState) {
  // A second name server in the same world knows nothing of the first one's brokers.
  make_cluster(NameServerConfig{}, 42, 2);
  const NodeId a = add_client("broker-a");
  register_broker(a, broker_on(a, "broker-a", {topic("T", 4)}));
  NameServer& second = name_server(1);
  EXPECT_EQ(second.routes().topic_count(), 0u);
  EXPECT_EQ(name_server().routes().topic_count(), 1u);
}

}  // namespace
}  // namespace ferry::namesrv::testing
