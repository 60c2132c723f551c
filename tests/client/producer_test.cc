// Producer against a simulated NameServer and two real brokers: round robin, retries on another
// broker, latency fault tolerance, oneway, async, batch, compression, auto-creation through
// TBW102, ordered sends by hash, and the errors a caller sees.
#include <map>
#include <set>

#include "client/client_errors.h"
#include "client/queue_selector.h"
#include "common/java_hash.h"
#include "common/sys_flag.h"
#include "tests/support/broker_inspector.h"
#include "tests/support/client_fixture.h"

using ferry::testing::BrokerInspector;

namespace ferry::client::testing {
namespace {

using namespace std::chrono_literals;

TEST_F(ClientTest, SyncSendsRoundRobinOverBrokersAndQueues) {
  boot({"broker-a", "broker-b"}, {{"T", 4}});
  Producer& p = producer();
  std::map<std::pair<std::string, std::int32_t>, int> per_queue;
  std::set<std::string> ids;
  for (int i = 0; i < 16; ++i) {
    Result<SendResult> r = run(p.send(text_message("T", numbered("m", i))));
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    EXPECT_EQ(r->status, SendStatus::SEND_OK);
    EXPECT_EQ(r->msg_id.size(), 32u);
    EXPECT_EQ(r->offset_msg_id.size(), 32u);
    ids.insert(r->msg_id);
    ++per_queue[{r->queue.broker_name, r->queue.queue_id.value()}];
  }
  EXPECT_EQ(ids.size(), 16u);
  ASSERT_EQ(per_queue.size(), 8u);  // 2 brokers x 4 queues, each used twice
  for (const auto& [q, n] : per_queue) EXPECT_EQ(n, 2) << q.first << " " << q.second;
  // What was sent can be pulled back with the reported offsets.
  Result<SendResult> r = run(p.send(text_message("T", "check", "TagA")));
  ASSERT_TRUE(r.ok());
  auto msgs = pull_all(r->queue, r->queue_offset);
  ASSERT_EQ(msgs.size(), 1u);
  EXPECT_EQ(body_text(msgs[0]), "check");
  EXPECT_EQ(msgs[0].uniq_key(), std::optional<std::string_view>(r->msg_id));
  EXPECT_EQ(msgs[0].offset_msg_id, r->offset_msg_id);
}

TEST_F(ClientTest, BrokerDownRetriesOnTheOtherBroker) {
  boot({"broker-a", "broker-b"}, {{"T", 2}});
  Producer& p = producer();
  ASSERT_TRUE(run(p.send(text_message("T", "warm"))).ok());
  cluster().kill(cluster().broker_node(1));  // broker-b
  for (int i = 0; i < 6; ++i) {
    Result<SendResult> r = run(p.send(text_message("T", "x")));
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    EXPECT_EQ(r->queue.broker_name, "broker-a");
  }
}

TEST_F(ClientTest, LatencyFaultToleranceAvoidsADeadBrokerFor600Seconds) {
  without_buggify("needs broker-a to look healthy: a reply the late-reply site holds for seconds makes the latency "
                  "table mark broker-a unavailable too, and then (as RocketMQ) the fastest-failing broker is picked");
  boot({"broker-a", "broker-b"}, {{"T", 2}});
  ProducerConfig cfg;
  cfg.send_latency_fault_enable = true;
  Producer& p = producer(cfg);
  ASSERT_TRUE(run(p.send(text_message("T", "warm"))).ok());
  // The client's first route poll (10 ms after its start) is over; the next is 30 s away, so the
  // sends below keep the stale route that still lists the dead broker.
  ASSERT_TRUE(eventually([&] { return instance().route_poll_rounds() >= 1; }, 10s)) << seed_text();
  cluster().run_for(1s);
  cluster().kill(cluster().broker_node(1));
  std::optional<MonoTime> isolated_until;
  MonoTime failed_at{};
  for (int i = 0; i < 8; ++i) {
    Result<SendResult> r = run(p.send(text_message("T", "x")));
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    EXPECT_EQ(r->queue.broker_name, "broker-a");
    auto at = p.fault_strategy().table().available_at("broker-b");
    if (at && !isolated_until && *at > client_rt().now()) {
      isolated_until = at;
      failed_at = client_rt().now();
    }
  }
  ASSERT_TRUE(isolated_until.has_value());
  // A failure counts as 30 s of latency → 600 s of isolation (from the failed attempt's end).
  const auto isolation = *isolated_until - failed_at;
  EXPECT_LE(isolation, 600s);
  EXPECT_GT(isolation, 599s);
  EXPECT_EQ(p.failed_attempts(), 1u) << "the dead broker was tried again while isolated";
  EXPECT_TRUE(p.fault_strategy().table().is_available("broker-a", client_rt().now()));
  EXPECT_FALSE(p.fault_strategy().table().is_available("broker-b", *isolated_until - 1s));
  EXPECT_TRUE(p.fault_strategy().table().is_available("broker-b", *isolated_until));
}

TEST_F(ClientTest, OnewayAndAsyncSendsArrive) {
  boot({"broker-a"}, {{"T", 1}});
  Producer& p = producer();
  Status s = run(p.send_oneway(text_message("T", "oneway")));
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  auto results = std::make_shared<std::vector<Result<SendResult>>>();
  for (int i = 0; i < 5; ++i) {
    p.send_async(text_message("T", numbered("async", i)), [results](Result<SendResult> r) { results->push_back(std::move(r)); });
  }
  EXPECT_TRUE(results->empty()) << "callbacks must not run inside send_async";
  auto done = cluster().run_until([&] { return results->size() == 5; }, 10s);
  ASSERT_TRUE(done.ok()) << done.message;
  for (const auto& r : *results) ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(p.async_in_flight(), 0u);
  cluster().run_for(1s);
  auto msgs = pull_all(MessageQueue{"T", "broker-a", QueueId(0)});
  ASSERT_EQ(msgs.size(), 6u);
  std::multiset<std::string> bodies;
  for (const auto& m : msgs) bodies.insert(body_text(m));
  EXPECT_EQ(bodies.count("oneway"), 1u);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(bodies.count(numbered("async", i)), 1u);
}

TEST_F(ClientTest, BatchIsOneRequestAndEveryMessageIsStored) {
  boot({"broker-a"}, {{"T", 2}});
  Producer& p = producer();
  std::vector<Message> batch;
  for (int i = 0; i < 3; ++i) {
    Message m = text_message("T", std::string(5000, static_cast<char>('a' + i)), "B");  // big, still not compressed
    m.set_keys(numbered("k", i));
    batch.push_back(std::move(m));
  }
  Result<SendResult> r = run(p.send_batch(batch));
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(std::count(r->msg_id.begin(), r->msg_id.end(), ','), 2);
  EXPECT_EQ(std::count(r->offset_msg_id.begin(), r->offset_msg_id.end(), ','), 2);
  auto msgs = pull_all(r->queue, r->queue_offset);
  ASSERT_EQ(msgs.size(), 3u);
  std::string ids;
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_EQ(body_text(msgs[i]), std::string(5000, static_cast<char>('a' + i)));
    EXPECT_EQ(msgs[i].sys_flag & sysflag::kCompressed, 0);
    if (i > 0) ids += ',';
    ids.append(*msgs[i].uniq_key());
  }
  EXPECT_EQ(ids, r->msg_id);
  // Batch rules are checked before anything is sent.
  std::vector<Message> mixed = {text_message("T", "a"), text_message("U", "b")};
  Result<SendResult> bad = run(p.send_batch(mixed));
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, Errc::invalid_argument);
}

TEST_F(ClientTest, LargeBodiesAreCompressedAndComeBackWhole) {
  boot({"broker-a"}, {{"T", 1}});
  Producer& p = producer();
  std::string body;
  for (int i = 0; i < 2000; ++i) body += fmt::format("line {}\n", i % 17);
  ASSERT_GE(body.size(), 4096u);
  Result<SendResult> r = run(p.send(text_message("T", body)));
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  auto msgs = pull_all(r->queue, r->queue_offset);
  ASSERT_EQ(msgs.size(), 1u);
  EXPECT_EQ(body_text(msgs[0]), body);
  EXPECT_LT(static_cast<std::size_t>(msgs[0].store_size), body.size()) << "stored uncompressed";
  // A body just under the threshold is sent as is.
  Result<SendResult> small = run(p.send(text_message("T", std::string(4095, 'z'))));
  ASSERT_TRUE(small.ok());
  auto m2 = pull_all(small->queue, small->queue_offset);
  ASSERT_EQ(m2.size(), 1u);
  EXPECT_GT(static_cast<std::size_t>(m2[0].store_size), 4095u);
}

TEST_F(ClientTest, UnknownTopicIsAutoCreatedThroughTBW102) {
  boot({"broker-a"});
  Producer& p = producer();
  Result<SendResult> r = run(p.send(text_message("AUTO", "first")));
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_LT(r->queue.queue_id.value(), 4);
  const auto* cfg = BrokerInspector(broker(0)).topics().find("AUTO");
  ASSERT_NE(cfg, nullptr);
  EXPECT_EQ(cfg->write_queue_nums, 4);  // min(defaultTopicQueueNums 4, TBW102's 8)
  EXPECT_EQ(cfg->perm, 6);
  // The broker registers the new topic; the client's next poll takes the real route.
  cluster().run_for(31s);
  auto route = instance().route("AUTO");
  ASSERT_TRUE(route.has_value());
  ASSERT_EQ(route->queue_datas.size(), 1u);
  EXPECT_EQ(route->queue_datas[0].write_queue_nums, 4);
  auto msgs = pull_all(r->queue, r->queue_offset);
  ASSERT_EQ(msgs.size(), 1u);
}

TEST_F(ClientTest, HashSelectorKeepsOneKeyOnOneQueue) {
  boot({"broker-a", "broker-b"}, {{"ORDERS", 4}});
  Producer& p = producer();
  std::set<std::pair<std::string, std::int32_t>> used;
  for (int i = 0; i < 12; ++i) {
    Result<SendResult> r = run(p.send(text_message("ORDERS", numbered("step", i)), select_by_hash("order-42")));
    ASSERT_TRUE(r.ok()) << r.error().to_string();
    used.insert({r->queue.broker_name, r->queue.queue_id.value()});
  }
  ASSERT_EQ(used.size(), 1u);
  // The same queue a Java producer picks: abs(hashCode % 8) over the route-ordered queues.
  const std::int32_t h = java_string_hash("order-42");
  const int index = std::abs(h % 8);
  const auto& queues = instance().find_publish_info("ORDERS")->queues();
  EXPECT_EQ(queues[static_cast<std::size_t>(index)].broker_name, used.begin()->first);
  EXPECT_EQ(queues[static_cast<std::size_t>(index)].queue_id.value(), used.begin()->second);
  // In order, in that queue.
  MessageQueue mq{"ORDERS", used.begin()->first, QueueId(used.begin()->second)};
  auto msgs = pull_all(mq);
  ASSERT_EQ(msgs.size(), 12u);
  for (int i = 0; i < 12; ++i) EXPECT_EQ(body_text(msgs[static_cast<std::size_t>(i)]), numbered("step", i));
  // Random and custom selectors.
  ASSERT_TRUE(run(p.send(text_message("ORDERS", "r"), select_random())).ok());
  QueueSelector last = [](std::span<const MessageQueue> qs, const Message&, Random&) { return qs.size() - 1; };
  Result<SendResult> c = run(p.send(text_message("ORDERS", "c"), last));
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(c->queue, queues.back());
  QueueSelector bad = [](std::span<const MessageQueue> qs, const Message&, Random&) { return qs.size(); };
  Result<SendResult> e = run(p.send(text_message("ORDERS", "c"), bad));
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.error().code, Errc::invalid_argument);
}

TEST_F(ClientTest, NoRouteIsAClearError) {
  broker_config_.auto_create_topic_enable = false;  // no TBW102 either
  boot({"broker-a"});
  Producer& p = producer();
  Result<SendResult> r = run(p.send(text_message("NOPE", "x")));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::not_found);
  EXPECT_NE(r.error().detail.find("no route for topic 'NOPE'"), std::string::npos) << r.error().detail;
  EXPECT_NE(r.error().detail.find("TOPIC_NOT_EXIST"), std::string::npos) << r.error().detail;
  // Invalid messages never leave the client.
  Result<SendResult> sys = run(p.send(text_message("TBW102", "x")));
  ASSERT_FALSE(sys.ok());
  EXPECT_EQ(sys.error().code, Errc::invalid_argument);
  Result<SendResult> empty = run(p.send(text_message("T", "")));
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.error().code, Errc::invalid_argument);
}

TEST_F(ClientTest, AllBrokersDownNamesTheBrokersAndTheLastError) {
  boot({"broker-a", "broker-b"}, {{"T", 1}});
  Producer& p = producer();
  ASSERT_TRUE(run(p.send(text_message("T", "warm"))).ok());
  cluster().kill(cluster().broker_node(0));
  cluster().kill(cluster().broker_node(1));
  Result<SendResult> r = run(p.send(text_message("T", "x")));
  ASSERT_FALSE(r.ok());
  const std::string& d = r.error().detail;
  EXPECT_NE(d.find("failed after 3 attempt(s)"), std::string::npos) << d;
  EXPECT_NE(d.find("broker-a"), std::string::npos) << d;
  EXPECT_NE(d.find("broker-b"), std::string::npos) << d;
  EXPECT_NE(d.find(":10911"), std::string::npos) << d;
}

TEST_F(ClientTest, BrokerErrorCarriesTheAddressAndCode) {
  boot({"broker-a"}, {{"T", 1}});
  Producer& p = producer();
  // queue 5 does not exist: the broker answers SYSTEM_ERROR (1).
  Result<SendResult> r = run(p.send_to(text_message("T", "x"), MessageQueue{"T", "broker-a", QueueId(5)}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(reply_code_of(r.error()), std::optional<std::int32_t>(1)) << r.error().detail;
  EXPECT_NE(r.error().detail.find(broker_addr(0)), std::string::npos) << r.error().detail;
}

TEST_F(ClientTest, SendTimesOutWhenTheBrokerIsUnreachable) {
  boot({"broker-a"}, {{"T", 1}});
  Producer& p = producer();
  ASSERT_TRUE(run(p.send(text_message("T", "warm"))).ok());
  cluster().isolate(cluster().broker_node(0));
  const MonoTime begin = client_rt().now();
  Result<SendResult> r = run(p.send(text_message("T", "x")));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code, Errc::timed_out) << r.error().detail;
  EXPECT_LE(client_rt().now() - begin, 3500ms);
  EXPECT_NE(r.error().detail.find("broker-a"), std::string::npos) << r.error().detail;
}

}  // namespace
}  // namespace ferry::client::testing
