// RECONSUME_LATER: the consumer sends the message back (CONSUMER_SEND_MSG_BACK with the
// context's delay level), the broker re-delivers it through %RETRY%{group} after the level's
// delay (level 3 = 10 s), and the listener sees it under its original topic with reconsumeTimes 1.
// Cut off from the broker, neither the send-back nor the re-send to the retry topic can work: the
// message is consumed again locally.
#include "tests/support/client_consumer_fixture.h"

namespace ferry::client::testing {
namespace {

using namespace std::chrono_literals;

TEST_F(ConsumerTest, ReconsumeLaterRedeliversThroughTheRetryTopic) {
  without_buggify("times level 3 (10 s, at most 15 s) and counts the broker's send-backs: the late-reply site may "
                  "hold a retry-topic pull's reply near its 30 s timeout, the send-back site takes the re-send path");
  boot({"broker-a"}, {{"R", 2}});
  auto out = std::make_shared<Deliveries>();
  auto later_once = [](const MessageExt& m, ConsumeConcurrentlyContext& ctx) {
    if (m.reconsume_times > 0) return ConsumeConcurrentlyStatus::CONSUME_SUCCESS;
    ctx.delay_level_when_next_consume = 3;
    return ConsumeConcurrentlyStatus::RECONSUME_LATER;
  };
  auto c = add_push_consumer("consumer-1", push_config("RG"), {"R", out, "*", later_once});
  // The retry topic exists once the broker has the group's heartbeat; the consumer holds its
  // queue from the next rebalance on.
  ASSERT_TRUE(eventually([&] { return push(c).held_queues().size() == 3; }, 60s)) << seed_text();
  std::set<std::string> sent = send_n("R", 5, "r");
  ASSERT_TRUE(eventually([&] { return static_cast<int>(out->all.size()) >= 10; }, 60s))
      << out->all.size() << seed_text();
  cluster().run_for(15s);
  ASSERT_EQ(out->all.size(), 10u) << "each message twice, no more" << seed_text();
  for (const std::string& body : sent) {
    std::vector<const Delivery*> ds = out->of(body);
    ASSERT_EQ(ds.size(), 2u) << body;
    EXPECT_EQ(ds[0]->reconsume_times, 0);
    EXPECT_EQ(ds[1]->reconsume_times, 1);
    EXPECT_EQ(ds[1]->topic, "R") << "the original topic is restored";
    EXPECT_EQ(ds[1]->queue.topic, retry_topic("RG"));
    const Duration gap = ds[1]->at - ds[0]->at;
    EXPECT_GE(gap, 9s) << body << seed_text();
    EXPECT_LE(gap, 15s) << body << seed_text();
  }
  EXPECT_EQ(push(c).stats().sent_back, 5u);
  EXPECT_EQ(push(c).stats().send_back_failed, 0u);
}

TEST_F(ConsumerTest, FailedSendBackIsRetriedLocally) {
  without_buggify("times the path send-back timeout (5 s) + re-send failure (3 s) + local retry (5 s): the "
                  "send-back buggify site fails the send-back at once");
  boot({"broker-a"}, {{"R", 1}});
  auto out = std::make_shared<Deliveries>();
  // The first delivery cuts the consumer off the broker before answering RECONSUME_LATER: the
  // send-back gets no reply (5 s), the inner producer's re-send to %RETRY%RG fails too (3 s),
  // and the message is consumed again locally after 5 s.
  sim::cluster::Cluster* cl = &cluster();
  auto cut = std::make_shared<std::optional<sim::NodeId>>();
  auto cut_then_later = [cl, cut](const MessageExt& m, ConsumeConcurrentlyContext&) {
    if (m.reconsume_times > 0) return ConsumeConcurrentlyStatus::CONSUME_SUCCESS;
    if (*cut) cl->partition(cl->broker_node(0), **cut);
    return ConsumeConcurrentlyStatus::RECONSUME_LATER;
  };
  auto c = add_push_consumer("consumer-1", push_config("RG"), {"R", out, "*", cut_then_later});
  *cut = c;
  ASSERT_TRUE(eventually([&] { return push(c).held_queues().size() == 2; }, 60s)) << seed_text();
  std::set<std::string> sent = send_n("R", 1, "x");
  ASSERT_TRUE(eventually([&] { return out->all.size() >= 2; }, 60s)) << seed_text();
  cluster().heal_all();
  cluster().run_for(20s);
  // A partition holds bytes until it heals, so the timed-out send-back may still reach the
  // broker then: a retry copy via %RETRY%RG is at-least-once, not a bug.
  ASSERT_GE(out->all.size(), 2u) << seed_text();
  for (std::size_t i = 2; i < out->all.size(); ++i) EXPECT_EQ(out->all[i].queue.topic, retry_topic("RG"));
  EXPECT_EQ(out->all[1].reconsume_times, 1);
  EXPECT_EQ(out->all[1].queue.topic, "R") << "consumed again from the same queue, not via the broker";
  EXPECT_GE(out->all[1].at - out->all[0].at, 9s) << seed_text();
  EXPECT_EQ(push(c).stats().send_back_failed, 1u);
  EXPECT_EQ(push(c).stats().resent_to_retry_topic, 0u);
  // The offset moves past the message once it is consumed.
  cluster().run_for(10s);
  Result<std::vector<QueueProgress>> prog = run(admin().consumer_progress("RG", "R"));
  ASSERT_TRUE(prog.ok()) << prog.error().to_string();
  ASSERT_EQ(prog->size(), 1u);
  EXPECT_EQ(prog->front().consumer_offset.value(), 1) << seed_text();
}

}  // namespace
}  // namespace ferry::client::testing
