#include "sim/check/lost_acked.h"

#include <gtest/gtest.h>

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
