// Clustering rebalance: two consumers of a group split the queues as AllocateMessageQueueAveragely
// says, at once when one joins (NOTIFY_CONSUMER_IDS_CHANGED) and when one crashes (the broker sees
// the connection close), and the 20 s timer keeps rebalancing; nothing sent is lost meanwhile.
#include <algorithm>

#include "tests/support/client_consumer_fixture.h"

namespace ferry::client::testing {
namespace {

using namespace std::chrono_literals;

class RebalanceSeeds : public ConsumerTest, public ::testing::WithParamInterface<std::uint64_t> {
 protected:
  RebalanceSeeds() : ConsumerTest(GetParam()) {}

  std::vector<MessageQueue> held(sim::NodeId id, const std::string& topic) {
    std::vector<MessageQueue> out;
    for (const MessageQueue& mq : push(id).held_queues()) {
      if (mq.topic == topic) out.push_back(mq);
    }
    return out;
  }
  std::vector<MessageQueue> all_queues(const std::string& topic, int per_broker) {
    std::vector<MessageQueue> out;
    for (const char* b : {"broker-a", "broker-b"}) {
      for (int q = 0; q < per_broker; ++q) out.push_back(MessageQueue{topic, b, QueueId(q)});
    }
    std::sort(out.begin(), out.end());
    return out;
  }
};

TEST_P(RebalanceSeeds, TwoConsumersSplitAndRebalanceOnJoinAndCrash) {
  boot({"broker-a", "broker-b"}, {{"T", 4}});
  auto out = std::make_shared<Deliveries>();
  PushConsumerConfig pc = push_config("CG");
  auto c1 = add_push_consumer("consumer-1", pc, {"T", out});
  const std::vector<MessageQueue> all = all_queues("T", 4);
  ASSERT_TRUE(eventually([&] { return held(c1, "T") == all; }, 30s)) << seed_text();
  std::set<std::string> sent = send_n("T", 40, "a");

  // A second consumer joins: consumer-1 hears of it from the broker (NOTIFY_CONSUMER_IDS_CHANGED)
  // as soon as consumer-2's heartbeat arrives, well before its 20 s rebalance timer. The split
  // itself then takes a few calls per queue (under swarm latency, seconds each), so the bound is
  // on the notification, the split's on the whole.
  const std::uint64_t notified_before = app(c1).instance->notifications();
  auto c2 = add_push_consumer("consumer-2", pc, {"T", out});
  auto noticed = cluster().run_until([&] { return app(c1).instance->notifications() > notified_before; }, 10s);
  EXPECT_TRUE(noticed.ok()) << "the join is noticed by NOTIFY_CONSUMER_IDS_CHANGED within 10 s" << seed_text();
  std::vector<std::string> ids = {client_id(c1), client_id(c2)};
  std::sort(ids.begin(), ids.end());
  auto share = [&](sim::NodeId id) { return allocate_averagely(all, ids, client_id(id)); };
  auto split = cluster().run_until([&] { return held(c1, "T") == share(c1) && held(c2, "T") == share(c2); }, 30s);
  ASSERT_TRUE(split.ok()) << held(c1, "T").size() << " + " << held(c2, "T").size() << seed_text();
  EXPECT_EQ(held(c1, "T").size(), 4u);
  EXPECT_EQ(held(c2, "T").size(), 4u);
  std::set<std::string> more = send_n("T", 40, "b");
  sent.insert(more.begin(), more.end());
  ASSERT_TRUE(wait_all(out, sent, 60s)) << seed_text();
  EXPECT_FALSE(out->bodies_by_consumer["consumer-2"].empty());

  // consumer-2 crashes: the broker sees its connections close and notifies consumer-1.
  cluster().run_for(6s);  // offsets persisted
  cluster().kill(c2);
  const MonoTime crashed = client_rt().now();
  ASSERT_TRUE(eventually([&] { return held(c1, "T") == all; }, 60s)) << seed_text();
  EXPECT_LT(client_rt().now() - crashed, 10s) << seed_text();
  std::set<std::string> after = send_n("T", 40, "c");
  sent.insert(after.begin(), after.end());
  ASSERT_TRUE(wait_all(out, sent, 60s)) << seed_text();
  cluster().run_for(5s);
  EXPECT_EQ(out->bodies(), sent) << seed_text();
  RecordProperty("duplicates", out->duplicates());
}

INSTANTIATE_TEST_SUITE_P(Seeds, RebalanceSeeds, ::testing::Range<std::uint64_t>(1, 6));

TEST_F(ConsumerTest, RebalanceTimerRunsEvery20sAndPicksUpASilentDeparture) {
  boot({"broker-a", "broker-b"}, {{"T", 2}});
  auto out = std::make_shared<Deliveries>();
  PushConsumerConfig pc;
  pc.group = "CG";
  auto c1 = add_push_consumer("consumer-1", pc, {"T", out});
  auto c2 = add_push_consumer("consumer-2", pc, {"T", out});
  auto count_t = [&](sim::NodeId id) {
    int n = 0;
    for (const MessageQueue& mq : push(id).held_queues()) n += mq.topic == "T";
    return n;
  };
  ASSERT_TRUE(eventually([&] { return count_t(c1) == 2 && count_t(c2) == 2; }, 30s)) << seed_text();
  const std::uint64_t before = push(c1).stats().rebalances;
  cluster().run_for(61s);
  EXPECT_GE(push(c1).stats().rebalances - before, 3u) << "one round every 20 s" << seed_text();

  // consumer-2 goes silent without closing anything (paused): no notification comes until the
  // broker drops it 120 s after its last heartbeat (sent at most 30 s before the pause, or 60 s
  // when a round was skipped: rounds may be, never two in a row), so not before 60 s;
  // consumer-1's rounds then take every queue.
  cluster().pause(c2);
  const MonoTime paused = client_rt().now();
  ASSERT_TRUE(eventually([&] { return count_t(c1) == 4; }, 200s)) << seed_text();
  EXPECT_GT(client_rt().now() - paused, 60s) << seed_text();
  cluster().resume(c2);
}

}  // namespace
}  // namespace ferry::client::testing
