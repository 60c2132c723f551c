// POP consumer (client/pop_consumer.h) on a simulated cluster: what is received and acknowledged
// never comes back; what is not comes back once its invisible time passed, its reconsumeTimes one
// higher; a changed invisible time holds it longer; several consumers share one queue without
// handing a message to two of them while it is invisible; a killed broker brings back what was
// handed out and not acknowledged.
#include <algorithm>
#include <set>

#include "client/pop_consumer.h"
#include "tests/support/client_consumer_fixture.h"

namespace ferry::client::testing {
namespace {

using namespace std::chrono_literals;

class PopConsumerTest : public ConsumerTest {
 protected:
  PopConsumer& consumer(PopConsumerConfig cfg = {}) {
    if (cfg.group.empty()) cfg.group = "PopG";
    cfg.from_first = true;
    consumers_.push_back(std::make_unique<PopConsumer>(instance(), cfg));
    return *consumers_.back();
  }
  ~PopConsumerTest() override { consumers_.clear(); }

  // Receives until `want` messages came (or `patience` on the client's clock), acknowledging each
  // one `keep` says to keep; the rest are returned unacknowledged.
  static Task<std::vector<MessageExt>> receive_until(PopConsumer* c, Runtime* rt, std::string topic, std::size_t want,
                                                     Duration patience, std::function<bool(const MessageExt&)> keep) {
    std::vector<MessageExt> got;
    const MonoTime until = rt->now() + patience;
    while (got.size() < want && rt->now() < until) {
      Task<Result<PopResult>> receiving = c->receive(topic);
      Result<PopResult> r = co_await std::move(receiving);
      if (!r.ok()) {
        co_await rt->sleep(1s);  // a broker away for a while: as an application would, try again
        continue;
      }
      for (MessageExt& m : r->messages) {
        if (keep && !keep(m)) {
          got.push_back(std::move(m));
          continue;
        }
        Task<Status> acking = c->ack(m);
        Status s = co_await std::move(acking);
        (void)s;  // a lost ack only makes the message come again
        got.push_back(std::move(m));
      }
    }
    co_return got;
  }
  std::vector<MessageExt> receive(PopConsumer& c, const std::string& topic, std::size_t want, Duration patience = 60s,
                                  std::function<bool(const MessageExt&)> keep = {}) {
    return run(receive_until(&c, &client_rt(), topic, want, patience, std::move(keep)), patience + 60s);
  }
  static std::multiset<std::string> bodies(const std::vector<MessageExt>& ms) {
    std::multiset<std::string> s;
    for (const MessageExt& m : ms) s.insert(body_text(m));
    return s;
  }

  std::vector<std::unique_ptr<PopConsumer>> consumers_;
};

TEST_F(PopConsumerTest, WhatIsNotAcknowledgedComesBackAndAChangeHoldsItLonger) {
  boot({"broker-a", "broker-b"}, {{"P", 2}});
  const std::set<std::string> sent = send_n("P", 20, "p");
  PopConsumer& c = consumer(PopConsumerConfig{.group = "PopG", .invisible_time = 8s, .poll_time = 2s});
  ASSERT_TRUE(c.subscribe("P", MessageSelector::by_tag("*")).ok());
  auto unacked = [](const MessageExt& m) { return body_text(m) != "p0" && body_text(m) != "p5" && body_text(m) != "p10"; };
  const std::vector<MessageExt> first = receive(c, "P", sent.size(), 60s, unacked);
  std::set<std::string> distinct;
  for (const MessageExt& m : first) distinct.insert(body_text(m));
  EXPECT_EQ(distinct, sent) << seed_text();

  // The three not acknowledged come back, each one higher in reconsumeTimes; one is held longer.
  std::vector<MessageExt> back = receive(c, "P", 3, 60s, [](const MessageExt&) { return false; });
  ASSERT_GE(back.size(), 3u) << seed_text();
  for (const MessageExt& m : back) EXPECT_GE(m.reconsume_times, 1) << body_text(m);
  MessageExt held;
  std::vector<MessageExt> rest;
  for (MessageExt& m : back) {
    if (body_text(m) == "p5" && held.body.empty()) {
      held = m;
    } else {
      rest.push_back(m);
    }
  }
  ASSERT_FALSE(held.body.empty()) << seed_text();
  const Status changed = run(c.change_invisible_time(held, 40s));
  ASSERT_TRUE(changed.ok()) << changed.error().to_string() << seed_text();
  const Status all = run(c.ack_all(rest));
  EXPECT_TRUE(all.ok()) << all.error().to_string() << seed_text();

  const std::vector<MessageExt> quiet = receive(c, "P", 1, 20s);
  for (const MessageExt& m : quiet) EXPECT_NE(body_text(m), "p5") << "held for 40 s" << seed_text();
  const std::vector<MessageExt> later = receive(c, "P", 1, 60s);
  const auto p5 = std::find_if(later.begin(), later.end(), [](const MessageExt& m) { return body_text(m) == "p5"; });
  ASSERT_NE(p5, later.end()) << "back after its 40 s" << seed_text();
  EXPECT_GE(p5->reconsume_times, 2);
  if (!ferry::testing::under_swarm()) {
    EXPECT_EQ(later.size(), 1u);
  }
}

TEST_F(PopConsumerTest, ConsumersShareOneQueueAndEachMessageGoesToOne) {
  boot({"broker-a"}, {{"Q", 1}});
  const std::set<std::string> sent = send_n("Q", 40, "q");
  std::vector<PopConsumer*> cs;
  for (int i = 0; i < 3; ++i) {
    PopConsumer& c = consumer(PopConsumerConfig{.group = "SharedG", .max_messages = 4, .invisible_time = 60s, .poll_time = 1s});
    ASSERT_TRUE(c.subscribe("Q", MessageSelector::by_tag("*")).ok());
    cs.push_back(&c);
  }
  auto got = std::make_shared<std::vector<std::vector<MessageExt>>>(3);
  auto done = std::make_shared<int>(0);
  for (int i = 0; i < 3; ++i) {
    client_rt().spawn([](PopConsumer* c, Runtime* rt, std::shared_ptr<std::vector<std::vector<MessageExt>>> out,
                         std::shared_ptr<int> finished, int me) -> Task<void> {
      Task<std::vector<MessageExt>> r = receive_until(c, rt, "Q", 40, 20s, {});
      (*out)[static_cast<std::size_t>(me)] = co_await std::move(r);
      ++*finished;
    }(cs[static_cast<std::size_t>(i)], &client_rt(), got, done, i));
  }
  ASSERT_TRUE(cluster().run_until([&] { return *done == 3; }, 120s).ok()) << seed_text();
  std::vector<MessageExt> all;
  int busy = 0;
  for (const auto& part : *got) {
    if (!part.empty()) ++busy;
    all.insert(all.end(), part.begin(), part.end());
  }
  std::set<std::string> distinct;
  for (const MessageExt& m : all) distinct.insert(body_text(m));
  EXPECT_EQ(distinct, sent) << seed_text();
  if (!ferry::testing::under_swarm()) {
    EXPECT_EQ(all.size(), sent.size()) << "a message went to two consumers while invisible";
    EXPECT_GE(busy, 2) << "one queue, and more than one consumer got messages";
  }
}

TEST_F(PopConsumerTest, AKilledBrokerBringsBackWhatWasNotAcknowledged) {
  boot({"broker-a"}, {{"K", 2}});
  const std::set<std::string> sent = send_n("K", 10, "k");
  PopConsumer& c = consumer(PopConsumerConfig{.group = "KillG", .invisible_time = 15s, .poll_time = 1s});
  ASSERT_TRUE(c.subscribe("K", MessageSelector::by_tag("*")).ok());
  const std::vector<MessageExt> first =
      receive(c, "K", sent.size(), 60s, [](const MessageExt& m) { return body_text(m) < "k5"; });
  ASSERT_EQ(bodies(first).size(), sent.size()) << seed_text();
  cluster().run_for(11s);  // the consumer offsets the POPs moved are persisted
  cluster().kill(cluster().broker_node(0));
  cluster().start(cluster().broker_node(0));
  wait_running(0);
  const std::vector<MessageExt> back = receive(c, "K", 5, 90s);
  std::set<std::string> came;
  for (const MessageExt& m : back) came.insert(body_text(m));
  for (std::string_view k : {"k5", "k6", "k7", "k8", "k9"}) EXPECT_TRUE(came.contains(std::string(k))) << k << seed_text();
  // Under faults the persisted offset may be older than the POPs: the topic's messages come again.
  if (!ferry::testing::under_swarm()) {
    EXPECT_EQ(came.size(), 5u);
  }
}

// A subscribed topic's route is polled with the instance's routes: a failover's new master is
// found without a receive failing first.
TEST_F(PopConsumerTest, ASubscribedTopicsRouteIsPolled) {
  boot({"broker-a"}, {{"W", 2}});
  instance().start();  // its route polls and heartbeats, as an application starts it
  EXPECT_FALSE(instance().route("W").has_value());
  PopConsumer& c = consumer(PopConsumerConfig{.group = "WatchG"});
  ASSERT_TRUE(c.subscribe("W", MessageSelector::by_tag("*")).ok());
  cluster().run_for(35s);  // a route poll or two (pollNameServerInterval 30 s), no receive
  const std::optional<TopicRouteData> route = instance().route("W");
  ASSERT_TRUE(route.has_value()) << seed_text();
  EXPECT_EQ(route->queue_datas.size(), 1u);
}

TEST(PopReceiptHandles, AreBuiltFromTheReplyHeaderAsRocketMqClientsBuildThem) {
  MessageExt a;
  a.topic = "T";
  a.queue_id = QueueId(2);
  a.queue_offset = QueueOffset(103);
  MessageExt retried;
  retried.topic = "T";
  retried.queue_id = QueueId(0);
  retried.queue_offset = QueueOffset(7);
  retried.properties.set(std::string(kPropertyPopCk), "7 1700000000000 60000 3 1 broker-a 0 7");
  std::vector<MessageExt> ms{a, retried};
  auto info = OffsetInfo::parse("0 2 100;1 0 7", "0 2 103;1 0 7", "");
  ASSERT_TRUE(info.ok());
  ASSERT_TRUE(assign_receipt_handles(ms, "T", "broker-a", 1'700'000'000'000, 60'000, 3, *info).ok());
  EXPECT_EQ(ms[0].properties.get(kPropertyPopCk), std::optional<std::string_view>("100 1700000000000 60000 3 0 broker-a 2 103"));
  EXPECT_EQ(ms[1].properties.get(kPropertyPopCk), std::optional<std::string_view>("7 1700000000000 60000 3 1 broker-a 0 7"));
  EXPECT_EQ(ms[0].properties.get(kPropertyFirstPopTime), std::optional<std::string_view>("1700000000000"));
  std::vector<MessageExt> orphan{a};
  orphan[0].queue_id = QueueId(5);
  EXPECT_FALSE(assign_receipt_handles(orphan, "T", "broker-a", 1, 1, 3, *info).ok()) << "no entry for its queue";
  std::vector<MessageExt> fifo{a};
  auto counts = OffsetInfo::parse("0 2 103", "0 2 103", "0 qo2%103 2;0 2 2");
  ASSERT_TRUE(counts.ok());
  ASSERT_TRUE(assign_receipt_handles(fifo, "T", "broker-a", 1, 1, kPopOrderReviveQueue, *counts).ok());
  EXPECT_EQ(fifo[0].reconsume_times, 2);
}

}  // namespace
}  // namespace ferry::client::testing
