// The pop-delivery check: a POP consumer's message comes back only once its invisible time is
// over and it was not acknowledged within it (a broker restart excuses both), and one nobody
// acknowledged does come back.
#include "sim/check/pop_delivery.h"

#include <gtest/gtest.h>

#include "tests/sim/check/history_builder.h"

namespace ferry::sim::check {
namespace {

using testing::HistoryBuilder;
using testing::queue;

const MessageQueue kQ = queue(0, "broker-a", "Orders");
const MessageQueue kRetry = queue(0, "broker-a", "%RETRY%pop-readers_Orders");

// Two messages to two members: #1 acknowledged, #2 left, back from the retry topic after its 5 s
// and acknowledged then; the history goes on long enough to judge #2's return.
HistoryBuilder clean() {
  HistoryBuilder b;
  b.send("producer-0", 1, kQ, 0).send("producer-0", 2, kQ, 1);
  b.pop("pop-0", "pop-readers", "producer-0", 1, kQ, 0, 1'000, 5'000).pop_ack(1'001);
  b.pop("pop-1", "pop-readers", "producer-0", 2, kQ, 1, 1'010, 5'000);
  b.pop("pop-0", "pop-readers", "producer-0", 2, kRetry, 0, 7'000, 5'000, 1).pop_ack(7'001);
  b.event(60'000, EventKind::heal, "", "liveness");
  b.h.consumers["pop-0"].group = "pop-readers";
  b.h.consumers["pop-1"].group = "pop-readers";
  return b;
}

TEST(PopDelivery, MessagesComeBackOnlyAfterTheirInvisibleTime) {
  const Verdict v = check_pop_delivery(clean().h);
  EXPECT_TRUE(v.passed) << v.to_line();
  EXPECT_EQ(v.figures.at("pop_deliveries"), 3);
  EXPECT_EQ(v.figures.at("redeliveries"), 1);
  EXPECT_EQ(v.figures.at("came_back"), 1);
  EXPECT_EQ(v.figures.at("acks_in_time"), 2);
  EXPECT_EQ(v.figures.at("unacked_judged"), 1);
  EXPECT_EQ(v.figures.at("never_back"), 0);
}

TEST(PopDelivery, ARedeliveryBeforeTheInvisibleTimeEndsFails) {
  HistoryBuilder b = clean();
  b.pop("pop-1", "pop-readers", "producer-0", 2, kRetry, 1, 9'000, 5'000, 2).pop_ack(9'001);  // #2's second life ends at 12 s
  const Verdict v = check_pop_delivery(b.h);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.figures.at("after_ack"), 1) << v.to_line();  // the return at 7 s was acknowledged in time
  b = clean();
  b.h.pop_acks.pop_back();  // not acknowledged: still invisible until 12 s
  b.pop("pop-1", "pop-readers", "producer-0", 2, kRetry, 1, 9'000, 5'000, 2).pop_ack(9'001);
  const Verdict early = check_pop_delivery(b.h);
  EXPECT_FALSE(early.passed);
  EXPECT_EQ(early.figures.at("early"), 1);
  EXPECT_NE(early.first_violation.find("producer-0#2 delivered to pop-readers again at 9000 ms"), std::string::npos)
      << early.first_violation;
  EXPECT_NE(early.first_violation.find("before the invisible time of its delivery to pop-0 at 7000 ms ended (12000 ms)"),
            std::string::npos)
      << early.first_violation;
  // A broker restart in between replays its checkpoints: explained.
  b.event(8'000, EventKind::start, "broker-a", "started again (incarnation 3)");
  const Verdict explained = check_pop_delivery(b.h);
  EXPECT_TRUE(explained.passed) << explained.to_line();
  EXPECT_EQ(explained.figures.at("explained"), 1);
  // A consumer's restart does not.
  b.h.events.clear();
  b.event(8'000, EventKind::crash, "pop-0", "process kill");
  EXPECT_FALSE(check_pop_delivery(b.h).passed);
}

TEST(PopDelivery, TheSameOffsetHandedOutTwiceIsARedelivery) {
  HistoryBuilder b = clean();
  b.pop("pop-1", "pop-readers", "producer-0", 1, kQ, 0, 2'000, 5'000).pop_ack(2'001);  // #1 acked at 1 s, handed out again
  const Verdict v = check_pop_delivery(b.h);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.figures.at("after_ack"), 1);
  EXPECT_NE(v.first_violation.find("although pop-0 acknowledged its delivery at 1000 ms within its invisible time, answered at 1003 ms"),
            std::string::npos)
      << v.first_violation;
  // Controller mode: a controller named another master of broker-a in between, which serves the
  // offsets SlaveSync copied last.
  ControllerViewRecord view;
  view.at = MonoTime(std::chrono::milliseconds(500));
  view.controller = "controller-0";
  view.group = "broker-a";
  view.master = "broker-a";
  b.h.controller_views.push_back(view);
  view.at = MonoTime(std::chrono::milliseconds(1'500));
  view.master = "broker-a-s1";
  b.h.controller_views.push_back(view);
  const Verdict failover = check_pop_delivery(b.h);
  EXPECT_TRUE(failover.passed) << failover.to_line();
  EXPECT_EQ(failover.figures.at("explained"), 1);
}

TEST(PopDelivery, AnAckAnsweredTooLateOrFailedDoesNotHoldTheMessageBack) {
  HistoryBuilder b;
  b.send("producer-0", 1, kQ, 0).send("producer-0", 2, kQ, 1);
  b.pop("pop-0", "pop-readers", "producer-0", 1, kQ, 0, 1'000, 2'000).pop_ack(1'500, 1'600);  // answered at 3.1 s
  b.pop("pop-0", "pop-readers", "producer-0", 1, kRetry, 0, 4'000, 2'000, 1).pop_ack(4'001);
  b.pop("pop-0", "pop-readers", "producer-0", 2, kQ, 1, 1'000, 2'000).pop_ack(1'001, 3'000, false);
  b.pop("pop-1", "pop-readers", "producer-0", 2, kRetry, 1, 3'500, 2'000, 1).pop_ack(3'501);
  const Verdict v = check_pop_delivery(b.h);
  EXPECT_TRUE(v.passed) << v.to_line();
  EXPECT_EQ(v.figures.at("came_back"), 2);
  EXPECT_EQ(v.figures.at("acks_in_time"), 2);
}

TEST(PopDelivery, AMessageNobodyAcknowledgedMustComeBack) {
  HistoryBuilder b = clean();
  b.send("producer-0", 3, kQ, 2).pop("pop-1", "pop-readers", "producer-0", 3, kQ, 2, 10'000, 5'000);
  b.h.consumers["pop-1"].group = "pop-readers";
  const Verdict v = check_pop_delivery(b.h);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.figures.at("never_back"), 1);
  EXPECT_NE(v.first_violation.find("producer-0#3 delivered to pop-readers at 10000 ms (pop-1, MessageQueue"), std::string::npos)
      << v.first_violation;
  EXPECT_NE(v.first_violation.find("was not acknowledged and never came back (visible again at 15000 ms; the history ends at 60000 ms)"),
            std::string::npos)
      << v.first_violation;
  // Loss is a figure where the scenario tolerates it.
  b.h.settings.lost_strict = false;
  EXPECT_TRUE(check_pop_delivery(b.h).passed);
  b.h.settings.lost_strict = true;
  // Not judged: too close to the end, a group nobody stayed in, or one past retryMaxTimes (DLQ).
  HistoryBuilder late = clean();
  late.send("producer-0", 3, kQ, 2).pop("pop-1", "pop-readers", "producer-0", 3, kQ, 2, 40'000, 5'000);
  late.h.consumers["pop-1"].group = "pop-readers";
  EXPECT_TRUE(check_pop_delivery(late.h).passed);
  for (const char* name : {"pop-0", "pop-1"}) b.h.consumers[name].left_at = MonoTime(std::chrono::milliseconds(11'000));
  EXPECT_TRUE(check_pop_delivery(b.h).passed);
  HistoryBuilder dlq = clean();
  dlq.send("producer-0", 3, kQ, 2).pop("pop-1", "pop-readers", "producer-0", 3, kRetry, 5, 10'000, 5'000, kRetryMaxTimes);
  dlq.h.consumers["pop-1"].group = "pop-readers";
  EXPECT_TRUE(check_pop_delivery(dlq.h).passed);
}

TEST(PopDelivery, OtherConsumersAreNotJudged) {
  HistoryBuilder b;
  b.send("producer-0", 1, kQ, 0).consume("push-0", "readers", "producer-0", 1, kQ, 0, 1'000).consume("push-0", "readers", "producer-0", 1, kQ, 0, 1'100);
  const Verdict v = check_pop_delivery(b.h);
  EXPECT_TRUE(v.passed);
  EXPECT_EQ(v.figures.at("pop_deliveries"), 0);
}

}  // namespace
}  // namespace ferry::sim::check
