#include "sim/check/lost_acked.h"

#include <gtest/gtest.h>

#include "sim/history/acked_progress.h"
#include "tests/sim/check/history_builder.h"

namespace ferry::sim::check {
namespace {

using testing::HistoryBuilder;
using testing::queue;

HistoryBuilder two_sends() {
  HistoryBuilder b;
  b.send("producer-0", 0, queue(0), 0).send("producer-0", 1, queue(1), 0).send("producer-0", 2, queue(1), 1, SendOutcome::unknown);
  return b;
}

TEST(LostAcked, PassesWhenEveryAcknowledgedSendIsConsumedByEveryGroup) {
  HistoryBuilder b = two_sends();
  b.consume("c-0", "g", "producer-0", 0, queue(0), 0, 100).consume("c-0", "g", "producer-0", 1, queue(1), 0, 110);
  b.consume("c-9", "other", "producer-0", 1, queue(1), 0, 100).consume("c-9", "other", "producer-0", 0, queue(0), 0, 120);
  const Verdict v = check_lost_acked(b.h);
  EXPECT_TRUE(v.passed) << v.to_line();
  EXPECT_EQ(v.figures.at("acked"), 2);
  EXPECT_EQ(v.figures.at("lost"), 0);
  EXPECT_EQ(v.figures.at("groups"), 2);
}

TEST(LostAcked, StrictModeFailsOnAPlantedLossAndNamesTheMessage) {
  HistoryBuilder b = two_sends();
  b.consume("c-0", "g", "producer-0", 0, queue(0), 0, 100);  // producer-0#1 never consumed
  const Verdict v = check_lost_acked(b.h);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.figures.at("lost"), 1);
  EXPECT_EQ(v.violations, 1);
  EXPECT_NE(v.first_violation.find("producer-0#1"), std::string::npos) << v.first_violation;
  EXPECT_NE(v.first_violation.find("queueId=1"), std::string::npos) << v.first_violation;
  EXPECT_NE(v.first_violation.find("offset 0"), std::string::npos) << v.first_violation;
}

// A send cleanup removed from its queue before the group consumed it (a disk past its limits
// deletes at once, RocketMQ's rule) is expired, not lost; one still above the queue's first
// offset is lost. The liveness requirement stops waiting for it too.
TEST(LostAcked, ASendCleanupRemovedBeforeItWasConsumedIsExpiredNotLost) {
  HistoryBuilder b = two_sends();
  b.consume("c-0", "g", "producer-0", 0, queue(0), 0, 100);  // producer-0#1 (queue 1, offset 0) not consumed
  b.h.queue_floors.push_back(QueueFloorRecord{testing::at_ms(150), queue(0), QueueOffset(1)});  // another queue
  EXPECT_FALSE(check_lost_acked(b.h).passed);
  auto h = std::make_shared<History>(b.h);
  AckedProgress waiting = AckedProgress::for_group(h, "g");
  EXPECT_EQ(waiting.missing().first, 1u);

  h->queue_floors.push_back(QueueFloorRecord{testing::at_ms(200), queue(1), QueueOffset(1)});
  EXPECT_EQ(waiting.missing().first, 0u) << "expired: nothing left to wait for";
  const Verdict v = check_lost_acked(*h);
  EXPECT_TRUE(v.passed) << v.to_line();
  EXPECT_EQ(v.figures.at("lost"), 0);
  EXPECT_EQ(v.figures.at("expired"), 1);
}

TEST(LostAcked, TolerantModeReportsTheLossAsAFigureAndPasses) {
  HistoryBuilder b = two_sends();
  b.h.settings.lost_strict = false;
  b.consume("c-0", "g", "producer-0", 0, queue(0), 0, 100);
  const Verdict v = check_lost_acked(b.h);
  EXPECT_TRUE(v.passed);
  EXPECT_EQ(v.figures.at("lost"), 1);
  EXPECT_NE(v.first_violation.find("producer-0#1"), std::string::npos);
}

TEST(LostAcked, AGroupThatSubscribedButConsumedNothingLostEverything) {
  HistoryBuilder b = two_sends();
  b.h.subscriptions["silent"].insert("Orders");
  b.h.subscriptions["elsewhere"].insert("Payments");  // no acknowledged send of its topic
  const Verdict v = check_lost_acked(b.h);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.figures.at("lost"), 2);
  EXPECT_EQ(v.figures.at("groups"), 2);
  EXPECT_NE(v.first_violation.find("producer-0#0 acknowledged at 5 ms"), std::string::npos) << v.first_violation;
  EXPECT_NE(v.first_violation.find("never consumed by silent"), std::string::npos) << v.first_violation;
}

}  // namespace
}  // namespace ferry::sim::check
