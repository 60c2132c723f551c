// ClientInstance: route polling, NameServer fail-over, heartbeats and unregistration, and the
// pure parts (publish info from a route, the latency fault table).
#include "client/latency_fault_tolerance.h"
#include "client/topic_publish_info.h"
#include "remoting/body/heartbeat_data.h"
#include "remoting/header/client_header.h"
#include "remoting/request_code.h"
#include "remoting/response_code.h"
#include "tests/support/broker_inspector.h"
#include "tests/support/client_fixture.h"

using ferry::testing::BrokerInspector;

namespace ferry::client::testing {
namespace {

using namespace std::chrono_literals;
namespace rc = remoting::request_code;
namespace body = remoting::body;

TEST(LatencyFaultTolerance, LatencyMapsToIsolation) {
  EXPECT_EQ(not_available_duration_ms(0), 0);
  EXPECT_EQ(not_available_duration_ms(50), 0);
  EXPECT_EQ(not_available_duration_ms(549), 0);
  EXPECT_EQ(not_available_duration_ms(550), 30000);
  EXPECT_EQ(not_available_duration_ms(1000), 60000);
  EXPECT_EQ(not_available_duration_ms(2000), 120000);
  EXPECT_EQ(not_available_duration_ms(3000), 180000);
  EXPECT_EQ(not_available_duration_ms(14999), 180000);
  EXPECT_EQ(not_available_duration_ms(15000), 600000);
  EXPECT_EQ(not_available_duration_ms(kFailureLatencyMs), 600000);
}

body::TopicRouteData two_broker_route(std::int32_t perm_b = 6, bool master_b = true) {
  body::TopicRouteData r;
  r.queue_datas = {{"b", 4, 4, perm_b, 0}, {"a", 2, 3, 6, 0}};
  body::BrokerData a{"c", "a", {{0, "10.0.0.1:10911"}}};
  body::BrokerData b{"c", "b", {{master_b ? 0 : 1, "10.0.0.2:10911"}}};
  r.broker_datas = {b, a};
  return r;
}

TEST(TopicPublishInfo, WritableQueuesOfBrokersWithAMaster) {
  TopicPublishInfo info("T", two_broker_route(), 0);
  ASSERT_EQ(info.queues().size(), 7u);
  EXPECT_EQ(info.queues()[0], (MessageQueue{"T", "a", QueueId(0)}));
  EXPECT_EQ(info.queues()[3], (MessageQueue{"T", "b", QueueId(0)}));
  EXPECT_EQ(TopicPublishInfo("T", two_broker_route(4), 0).queues().size(), 3u);         // b read-only
  EXPECT_EQ(TopicPublishInfo("T", two_broker_route(6, false), 0).queues().size(), 3u);  // b: no master
  EXPECT_EQ(subscribe_queues("T", two_broker_route()).size(), 6u);  // read queue counts
  // Retries avoid the last broker.
  for (int i = 0; i < 10; ++i) EXPECT_EQ(info.select_one_avoiding(std::string("a")).broker_name, "b");
  body::TopicRouteData ordered = two_broker_route();
  ordered.order_topic_conf = "b:2;a:1";
  TopicPublishInfo o("T", ordered, 0);
  EXPECT_TRUE(o.order_topic());
  ASSERT_EQ(o.queues().size(), 3u);
  EXPECT_EQ(o.queues()[2], (MessageQueue{"T", "a", QueueId(0)}));
}

TEST(FaultStrategy, PrefersAvailableBrokersThenTheLeastBad) {
  TopicPublishInfo info("T", two_broker_route(), 0);
  FaultStrategy f;
  f.enabled = true;
  const MonoTime t0{};
  f.update("a", 100, true, t0);  // a failure: 600 s
  for (int i = 0; i < 10; ++i) EXPECT_EQ(f.select(info, std::nullopt, t0 + 1s).broker_name, "b");
  f.update("b", 3000, false, t0);  // slow: 180 s
  // Both isolated: the one with the lower latency... b (3000) < a (100 latency, but isolation) —
  // ranked by latency among unavailable ones.
  EXPECT_EQ(f.select(info, std::nullopt, t0 + 2s).broker_name, "a");
  EXPECT_EQ(f.select(info, std::nullopt, t0 + 181s).broker_name, "b");  // b is back first
  EXPECT_EQ(f.select(info, std::nullopt, t0 + 601s).broker_name.size(), 1u);
}

TEST_F(ClientTest, RoutePollingPicksUpANewTopicWithin30Seconds) {
  without_buggify("times one route-poll interval: the route-poll site keeps a topic's old route for a round");
  boot();
  ClientInstance& ci = instance();
  ci.start();
  (void)ci.publish_info("LATER");  // a producer's topic, unknown for now
  cluster().run_for(1s);
  EXPECT_FALSE(ci.route("LATER").has_value());
  // Created behind the client's back (another admin).
  remoting::body::TopicConfig t;
  t.topic_name = "LATER";
  t.read_queue_nums = 2;
  t.write_queue_nums = 2;
  t.perm = 6;
  ASSERT_TRUE(BrokerInspector(broker(0)).put_topic(t).ok());
  const MonoTime created = client_rt().now();
  auto r = cluster().run_until([&] { return ci.find_publish_info("LATER")->ok(); }, 31s);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_LE(client_rt().now() - created, 31s);
  EXPECT_EQ(ci.find_publish_info("LATER")->queues().size(), 2u);
  EXPECT_EQ(ci.master_address("broker-a"), std::optional<std::string>(broker_addr(0)));
  EXPECT_GE(ci.route_poll_rounds(), 1u);
}

TEST_F(ClientTest, ClientIdIsIpAtInstanceName) {
  boot({"broker-a"});
  EXPECT_EQ(instance().client_id(), client_rt().network().host() + "@test");
}

TEST_F(ClientTest, NameServerFailOver) {
  boot({"broker-a"}, {{"T", 2}}, 2);
  ClientInstance& ci = instance();
  const std::string first = ci.name_servers().current();
  const std::vector<std::string>& addrs = cluster().namesrv_addrs();
  const std::size_t dead = first == addrs[0] ? 0 : 1;
  cluster().kill(cluster().namesrv_node(dead));
  Status s = run(ci.update_topic_route("T"));
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  EXPECT_EQ(ci.name_servers().current(), addrs[1 - dead]);
  EXPECT_EQ(ci.name_servers().failovers(), 1u);
  // Sends keep working through the other NameServer.
  Producer& p = producer();
  ASSERT_TRUE(run(p.send(text_message("T", "x"))).ok());
  // Both down: a clear error naming both.
  cluster().kill(cluster().namesrv_node(1 - dead));
  Status none = run(ci.update_topic_route("T"));
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().detail.find(addrs[0]), std::string::npos) << none.error().detail;
  EXPECT_NE(none.error().detail.find(addrs[1]), std::string::npos) << none.error().detail;
}

Task<void> route_update_into(ClientInstance* ci, std::string topic, std::shared_ptr<std::vector<Status>> out) {
  out->push_back(co_await ci->update_topic_route(topic));
}

// Regression: calls in flight together used to share the fail-over position, so one call's
// fail-over could send another back to the NameServer it had already found dead ("tried X, X")
// while the other one was up. Each call tries every NameServer once.
TEST_F(ClientTest, ConcurrentCallsEachTryEveryNameServer) {
  boot({"broker-a"}, {{"T", 2}, {"U", 2}}, 2);
  ClientInstance& ci = instance();
  const std::vector<std::string>& addrs = cluster().namesrv_addrs();
  const std::size_t dead = ci.name_servers().current() == addrs[0] ? 0 : 1;
  cluster().kill(cluster().namesrv_node(dead));
  auto results = std::make_shared<std::vector<Status>>();
  client_rt().spawn(route_update_into(&ci, "T", results), "route-T");
  client_rt().spawn(route_update_into(&ci, "U", results), "route-U");
  ASSERT_TRUE(eventually([&] { return results->size() == 2; }, 30s)) << seed_text();
  for (const Status& s : *results) EXPECT_TRUE(s.ok()) << s.error().to_string() << seed_text();
  EXPECT_EQ(ci.name_servers().current(), addrs[1 - dead]);
}

// The broker does not serve HEART_BEAT / UNREGISTER_CLIENT yet: the test plugs recorders in.
struct Seen {
  std::vector<body::HeartbeatData> heartbeats;
  std::vector<remoting::UnregisterClientRequestHeader> unregistered;
};

Task<std::optional<remoting::RemotingCommand>> record_heartbeat(std::shared_ptr<Seen> seen, remoting::RequestContext ctx) {
  auto hb = body::HeartbeatData::decode(ctx.request.body);
  if (hb) seen->heartbeats.push_back(std::move(*hb));
  co_return remoting::make_response(ctx.request, hb ? 0 : 1);
}
Task<std::optional<remoting::RemotingCommand>> record_unregister(std::shared_ptr<Seen> seen, remoting::RequestContext ctx) {
  auto h = remoting::UnregisterClientRequestHeader::from_fields(ctx.request.ext_fields);
  if (h) seen->unregistered.push_back(std::move(*h));
  co_return remoting::make_response(ctx.request, 0);
}

TEST_F(ClientTest, HeartbeatsEvery30SecondsAndUnregisterOnShutdown) {
  boot({"broker-a"}, {{"T", 1}});
  auto seen = std::make_shared<Seen>();
  broker(0).register_processor(rc::HEART_BEAT, [seen](remoting::RequestContext ctx) { return record_heartbeat(seen, std::move(ctx)); });
  broker(0).register_processor(rc::UNREGISTER_CLIENT, [seen](remoting::RequestContext ctx) { return record_unregister(seen, std::move(ctx)); });
  Producer& p = producer();
  ASSERT_TRUE(run(p.send(text_message("T", "x"))).ok());  // learns broker-a
  const std::size_t before = seen->heartbeats.size();
  cluster().run_for(61s);
  EXPECT_GE(seen->heartbeats.size() - before, 2u);
  EXPECT_LE(seen->heartbeats.size() - before, 3u);
  ASSERT_FALSE(seen->heartbeats.empty());
  const body::HeartbeatData& hb = seen->heartbeats.back();
  EXPECT_EQ(hb.client_id, instance().client_id());
  ASSERT_EQ(hb.producer_data_set.size(), 1u);
  EXPECT_EQ(hb.producer_data_set[0].group_name, "PG");
  EXPECT_TRUE(hb.consumer_data_set.empty());
  run(instance().shutdown());
  ASSERT_EQ(seen->unregistered.size(), 1u);
  EXPECT_EQ(seen->unregistered[0].client_id, instance().client_id());
  EXPECT_EQ(seen->unregistered[0].producer_group, std::optional<std::string>("PG"));
  Result<SendResult> after = run(p.send(text_message("T", "late")));
  ASSERT_FALSE(after.ok());
  EXPECT_EQ(after.error().code, Errc::closed);
}

}  // namespace
}  // namespace ferry::client::testing
