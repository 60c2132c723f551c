// consumeTimeout (RocketMQ's cleanExpiredMsg): a listener call that blocks holds its queue's
// committed offset back; once the call has run for longer than consume_timeout, the consumer
// sends the message back (delay level 3) and drops it from its cache, so the offset moves on, and
// the message comes back through %RETRY%{group}. The blocked call's late result changes nothing.
// The listener "blocks" through SlowListenerRuntime (the simulator runs listeners inline).
#include "tests/support/client_consumer_fixture.h"
#include "tests/client/slow_listener_runtime.h"

namespace ferry::client::testing {
namespace {

using namespace std::chrono_literals;

TEST_F(ConsumerTest, AMessageConsumedForLongerThanConsumeTimeoutIsSentBackAndItsOffsetMovesOn) {
  boot({"broker-a"}, {{"T", 1}});
  auto out = std::make_shared<Deliveries>();
  auto hold = std::make_shared<ListenerHold>();
  PushConsumerConfig pc = push_config("TG");
  pc.consume_timeout = 30s;
  auto t0_blocks = [hold](const MessageExt& m, ConsumeConcurrentlyContext&) {
    if (body_text(m) == "t0" && m.reconsume_times == 0) hold->hold_next(10min);  // blocks for 10 minutes
    return ConsumeConcurrentlyStatus::CONSUME_SUCCESS;
  };
  auto slow = [hold](Runtime& base) -> std::unique_ptr<Runtime> { return std::make_unique<SlowListenerRuntime>(base, hold); };
  auto c = add_push_consumer("consumer-1", pc, {"T", out, "*", t0_blocks, slow});
  ASSERT_TRUE(eventually([&] { return push(c).held_queues().size() == 2; }, 60s)) << seed_text();
  const MessageQueue mq{"T", "broker-a", QueueId(0)};
  auto committed = [&]() -> std::int64_t {
    Result<std::vector<QueueProgress>> prog = run(admin().consumer_progress("TG", "T"));
    EXPECT_TRUE(prog.ok()) << prog.error().to_string();
    return prog.ok() && prog->size() == 1 ? prog->front().consumer_offset.value() : -2;
  };

  std::set<std::string> sent = send_n("T", 3, "t");  // t0 blocks; t1 and t2 are consumed at once
  ASSERT_TRUE(eventually([&] { return out->all.size() >= 3; }, 30s)) << seed_text();
  const MonoTime blocked_at = out->all.front().at;
  EXPECT_EQ(out->all.front().body, "t0");
  cluster().run_for(12s);  // offsets persisted, still within the timeout
  EXPECT_LT(committed(), 1) << "t0 is still being consumed (0, or none stored yet)" << seed_text();
  EXPECT_EQ(push(c).process_queue(mq)->cached_count(), 1);

  // Past the timeout (checked every 30 s): t0 is sent back and leaves the cache.
  ASSERT_TRUE(eventually([&] { return push(c).stats().expired == 1; }, 90s)) << seed_text();
  EXPECT_GT(client_rt().now() - blocked_at, 30s);
  EXPECT_EQ(hold->finished_calls, 0) << "the listener call is still running";
  EXPECT_EQ(push(c).process_queue(mq)->cached_count(), 0);
  ASSERT_TRUE(eventually([&] { return committed() == 3; }, 30s)) << seed_text();

  // It comes back through the retry topic (level 3: 10 s), consumed this time.
  ASSERT_TRUE(eventually([&] { return out->all.size() >= 4; }, 60s)) << seed_text();
  const Delivery& again = out->all.back();
  EXPECT_EQ(again.body, "t0");
  EXPECT_EQ(again.reconsume_times, 1);
  EXPECT_EQ(again.queue.topic, retry_topic("TG"));
  EXPECT_EQ(again.topic, "T");

  // The blocked call ends (its SUCCESS is for a message already sent back): nothing else happens.
  ASSERT_TRUE(eventually([&] { return hold->finished_calls == 1; }, 15min)) << seed_text();
  cluster().run_for(60s);
  EXPECT_EQ(out->all.size(), 4u) << seed_text();
  EXPECT_EQ(out->bodies(), sent);
  EXPECT_EQ(push(c).stats().expired, 1u);
  EXPECT_EQ(push(c).stats().sent_back, 0u) << "the late SUCCESS sends nothing back";
  EXPECT_EQ(committed(), 3) << seed_text();
}

TEST_F(ConsumerTest, ConsumeTimeoutLeavesQuickListenersAlone) {
  boot({"broker-a"}, {{"T", 2}});
  auto out = std::make_shared<Deliveries>();
  PushConsumerConfig pc = push_config("QG");
  pc.consume_timeout = 1s;  // every listener call here takes zero virtual time
  auto c = add_push_consumer("consumer-1", pc, {"T", out});
  std::set<std::string> sent = send_n("T", 20, "q");
  ASSERT_TRUE(wait_all(out, sent, 60s)) << seed_text();
  cluster().run_for(30s);
  EXPECT_EQ(out->all.size(), 20u) << seed_text();
  EXPECT_EQ(push(c).stats().expired, 0u);
  EXPECT_EQ(push(c).stats().sent_back, 0u);
}

}  // namespace
}  // namespace ferry::client::testing
