// The timer_delivery check: a timer message is first consumed no earlier than its send plus its
// delay, and no later than acknowledged + delay + precision + late_max unless a fault lies in
// between; the lateness percentiles are figures.
#include "sim/check/timer_delivery.h"

#include <gtest/gtest.h>

#include "tests/sim/check/history_builder.h"

namespace ferry::sim::check {
namespace {

using testing::HistoryBuilder;
using testing::queue;

const TimerDeliveryBounds kBounds{.late_max = std::chrono::seconds(2), .precision = std::chrono::seconds(1)};

TEST(TimerDelivery, OnTimeTimersPassAndTheirLatenessIsMeasured) {
  HistoryBuilder b;
  b.timer("scheduler-0", 0, 1'000, 5'000).timer("scheduler-0", 1, 1'100, 30'000).timer("scheduler-0", 2, 1'200, 2'000);
  const auto q = queue(0, "broker-a", "Reminders");
  b.consume("notifier-0", "notifiers", "scheduler-0", 0, q, 0, 6'400)
      .consume("notifier-1", "notifiers", "scheduler-0", 0, q, 0, 9'000)  // a redelivery: the first one counts
      .consume("notifier-0", "notifiers", "scheduler-0", 1, q, 2, 31'900)
      .consume("notifier-0", "notifiers", "scheduler-0", 2, q, 1, 3'250);
  const Verdict v = check_timer_delivery(b.h, kBounds);
  EXPECT_TRUE(v.passed) << v.to_line();
  EXPECT_EQ(v.figures.at("timers"), 3);
  EXPECT_EQ(v.figures.at("judged"), 3);
  EXPECT_EQ(v.figures.at("lateness_p50_ms"), 400);
  EXPECT_EQ(v.figures.at("lateness_max_ms"), 800);
  EXPECT_EQ(v.figures.at("delay_max_ms"), 30'000);
}

TEST(TimerDelivery, AnEarlyTimerFailsNamingItsDelay) {
  HistoryBuilder b;
  b.timer("scheduler-0", 7, 1'000, 10'000).consume("notifier-0", "notifiers", "scheduler-0", 7, queue(0, "broker-a", "Reminders"), 0, 9'000);
  const Verdict v = check_timer_delivery(b.h, kBounds);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.figures.at("early"), 1);
  EXPECT_NE(v.first_violation.find("scheduler-0#7 asked for a delay of 10000 ms"), std::string::npos) << v.first_violation;
  EXPECT_NE(v.first_violation.find("2000 ms early"), std::string::npos) << v.first_violation;
  // early_slack allows for brokers whose clocks disagree.
  EXPECT_TRUE(check_timer_delivery(b.h, TimerDeliveryBounds{.early_slack = std::chrono::seconds(3)}).passed);
  // A broker restarted after its wall clock jumped moves its pending timers: excused.
  b.event(3'000, EventKind::fault, "broker-a", "skew_clock +30s").event(4'000, EventKind::start, "broker-a");
  EXPECT_TRUE(check_timer_delivery(b.h, kBounds).passed);
}

TEST(TimerDelivery, ALateTimerFailsUnlessAFaultLiesInBetween) {
  HistoryBuilder b;
  b.timer("scheduler-1", 3, 0, 4'000).consume("notifier-0", "notifiers", "scheduler-1", 3, queue(1, "broker-a", "Reminders"), 0, 7'500);
  const Verdict v = check_timer_delivery(b.h, kBounds);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.figures.at("late"), 1);
  EXPECT_NE(v.first_violation.find("2495 ms after it was due"), std::string::npos) << v.first_violation;
  b.event(2'000, EventKind::crash, "broker-a");
  const Verdict excused = check_timer_delivery(b.h, kBounds);
  EXPECT_TRUE(excused.passed) << excused.to_line();
  EXPECT_EQ(excused.figures.at("late_excused"), 1);
}

TEST(TimerDelivery, UnacknowledgedOrUnconsumedTimersAndPlainSendsAreNotJudged) {
  HistoryBuilder b;
  b.timer("scheduler-0", 0, 0, 1'000).timer("scheduler-0", 1, 0, 1'000);
  b.h.sends[1].outcome = SendOutcome::unknown;
  b.send("producer-0", 0, queue(0), 0).consume("c", "g", "producer-0", 0, queue(0), 0, 1);
  b.consume("c", "g", "scheduler-0", 1, queue(0, "broker-a", "Reminders"), 0, 10);  // early, but never acknowledged
  const Verdict v = check_timer_delivery(b.h, kBounds);
  EXPECT_TRUE(v.passed) << v.to_line();
  EXPECT_EQ(v.figures.at("timers"), 1);
  EXPECT_EQ(v.figures.at("judged"), 0);
}

}  // namespace
}  // namespace ferry::sim::check
