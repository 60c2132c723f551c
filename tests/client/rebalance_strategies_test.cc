// Clustering rebalance end to end with AllocateMessageQueueAveragelyByCircle and
// AllocateMessageQueueConsistentHash: consumers of one group join one by one (1..4) and then
// leave one by one (graceful shutdown or crash); after each change settles, every queue of the
// topic is held by exactly one live consumer, the one the strategy names, and the queues of a
// consumer that left move to the others. With consistent hashing, a departure moves only the
// departed consumer's queues. Messages sent along the way all reach a listener.
#include <algorithm>
#include <tuple>

#include "tests/support/client_consumer_fixture.h"

namespace ferry::client::testing {
namespace {

using namespace std::chrono_literals;

constexpr int kConsumersMax = 4;

class StrategyRebalance : public ConsumerTest,
                          public ::testing::WithParamInterface<std::tuple<AllocateStrategy, std::uint64_t>> {
 protected:
  StrategyRebalance() : ConsumerTest(std::get<1>(GetParam())) {}
  AllocateStrategy strategy() const { return std::get<0>(GetParam()); }

  std::vector<MessageQueue> held(sim::NodeId id) {
    std::vector<MessageQueue> out;
    for (const MessageQueue& mq : push(id).held_queues()) {
      if (mq.topic == "T") out.push_back(mq);
    }
    return out;
  }
  std::vector<std::string> live_ids() {
    std::vector<std::string> ids;
    for (sim::NodeId id : live_) ids.push_back(client_id(id));
    std::sort(ids.begin(), ids.end());
    return ids;
  }
  std::vector<MessageQueue> expected(sim::NodeId id) {
    const std::vector<std::string> ids = live_ids();
    return allocate(strategy(), all_, ids, client_id(id));
  }
  bool settled() {
    for (sim::NodeId id : live_) {
      if (held(id) != expected(id)) return false;
    }
    return true;
  }
  // Who holds each queue now (every live consumer's claim).
  std::map<MessageQueue, std::vector<std::string>> owners() {
    std::map<MessageQueue, std::vector<std::string>> out;
    for (sim::NodeId id : live_) {
      for (const MessageQueue& mq : held(id)) out[mq].push_back(cluster().name_of(id));
    }
    return out;
  }
  std::string describe() {
    std::string s;
    for (sim::NodeId id : live_) {
      s += fmt::format(" {} holds {} (expects {});", cluster().name_of(id), held(id).size(), expected(id).size());
    }
    return s + seed_text();
  }
  void expect_each_queue_held_once() {
    const auto o = owners();
    EXPECT_EQ(o.size(), all_.size()) << describe();
    for (const auto& [mq, who] : o) EXPECT_EQ(who.size(), 1u) << mq.to_string() << describe();
  }

  std::vector<MessageQueue> all_;
  std::vector<sim::NodeId> live_;
};

TEST_P(StrategyRebalance, EveryQueueHasExactlyOneOwnerAsConsumersJoinAndLeave) {
  boot({"broker-a", "broker-b"}, {{"T", 4}});
  for (const char* b : {"broker-a", "broker-b"}) {
    for (int q = 0; q < 4; ++q) all_.push_back(MessageQueue{"T", b, QueueId(q)});
  }
  std::sort(all_.begin(), all_.end());
  auto out = std::make_shared<Deliveries>();
  PushConsumerConfig pc = push_config("SG");
  pc.allocate_strategy = strategy();
  std::set<std::string> sent;

  for (int n = 1; n <= kConsumersMax; ++n) {
    const std::string name = numbered("consumer-", n);
    live_.push_back(add_push_consumer(name, pc, {"T", out}));
    ASSERT_TRUE(eventually([&] { return settled(); }, 60s)) << n << " consumers:" << describe();
    expect_each_queue_held_once();
    std::set<std::string> more = send_n("T", 16, numbered("join", n) + "-");
    sent.insert(more.begin(), more.end());
  }
  // 120 s: under swarm's faults (slow disks, clogged links, lost replies) the last of 64 sends
  // may take a minute to arrive (62 s on FERRY_SIM_SWARM=7, AVG_BY_CIRCLE seed 1).
  ASSERT_TRUE(wait_all(out, sent, 120s)) << seed_text();

  // Leave one by one: even ones shut down gracefully, odd ones crash.
  for (int n = kConsumersMax; n >= 2; --n) {
    const sim::NodeId leaving = live_.back();
    const std::vector<MessageQueue> theirs = held(leaving);
    std::map<sim::NodeId, std::vector<MessageQueue>> before;
    for (sim::NodeId id : live_) before[id] = held(id);
    cluster().run_for(6s);  // offsets persisted (a crash re-delivers at most what came after)
    if (n % 2 == 0) {
      stop_consumer(leaving);
    } else {
      cluster().kill(leaving);
    }
    live_.pop_back();
    ASSERT_TRUE(eventually([&] { return settled(); }, 60s)) << n - 1 << " consumers left:" << describe();
    expect_each_queue_held_once();
    const auto o = owners();
    for (const MessageQueue& mq : theirs) {
      ASSERT_EQ(o.count(mq), 1u) << mq.to_string() << " was not taken over" << describe();
    }
    if (strategy() == AllocateStrategy::consistent_hash) {
      for (sim::NodeId id : live_) {
        const std::vector<MessageQueue> now_held = held(id);
        for (const MessageQueue& mq : before[id]) {
          EXPECT_TRUE(std::binary_search(now_held.begin(), now_held.end(), mq))
              << mq.to_string() << " moved away from " << cluster().name_of(id) << describe();
        }
      }
    }
    std::set<std::string> more = send_n("T", 16, numbered("leave", n) + "-");
    sent.insert(more.begin(), more.end());
    ASSERT_TRUE(wait_all(out, sent, 60s)) << seed_text();
  }
  ASSERT_EQ(live_.size(), 1u);
  EXPECT_EQ(held(live_.front()), all_) << describe();
  EXPECT_EQ(out->bodies(), sent) << seed_text();
  RecordProperty("duplicates", out->duplicates());
}

std::string strategy_param_name(const ::testing::TestParamInfo<std::tuple<AllocateStrategy, std::uint64_t>>& info) {
  return fmt::format("{}_seed{}", name(std::get<0>(info.param)), std::get<1>(info.param));
}

INSTANTIATE_TEST_SUITE_P(Strategies, StrategyRebalance,
                         ::testing::Combine(::testing::Values(AllocateStrategy::by_circle, AllocateStrategy::consistent_hash,
                                                              AllocateStrategy::averagely),
                                            ::testing::Values<std::uint64_t>(1, 2, 3)),
                         strategy_param_name);

}  // namespace
}  // namespace ferry::client::testing
