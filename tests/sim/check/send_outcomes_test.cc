#include "sim/check/send_outcomes.h"

#include <gtest/gtest.h>

#include "tests/sim/check/named_check_builder.h"

namespace ferry::sim::check {
namespace {

using testing::HistoryBuilder;
using testing::queue;
using testing::timed_send;

// broker-a's disk is full from 10 s to 30 s: it acknowledges until 12 s (its current file), the
// producer's retries land on broker-b, and broker-a takes a write again 9 s after the heal.
HistoryBuilder disk_full() {
  HistoryBuilder b;
  timed_send(b, "producer-0", 0, queue(0, "broker-a"), 5'000, 5'002);
  b.event(10'000, EventKind::fault, "broker-a");
  timed_send(b, "producer-0", 1, queue(1, "broker-a"), 12'000, 12'002);
  timed_send(b, "producer-0", 2, queue(0, "broker-b"), 20'000, 20'003);
  b.event(30'000, EventKind::heal, "broker-a");
  timed_send(b, "producer-0", 3, queue(0, "broker-b"), 31'000, 31'002);
  timed_send(b, "producer-0", 4, queue(2, "broker-a"), 39'000, 39'002);
  return b;
}

TEST(SendOutcomes, CountsTheAnswersAndTheGroupsWindow) {
  const HistoryBuilder b = disk_full();
  const Verdict v = check_send_outcomes(b.h, SendOutcomesBounds{0, 0, 0, 1'000, 0, "broker-a", 10'000});
  EXPECT_TRUE(v.passed) << v.to_line();
  EXPECT_EQ(v.figures.at("ok"), 5);
  EXPECT_EQ(v.figures.at("failed"), 0);
  EXPECT_EQ(v.figures.at("unknown"), 0);
  EXPECT_EQ(v.figures.at("not_durable"), 0);
  EXPECT_EQ(v.figures.at("slow_ok"), 0);
  EXPECT_EQ(v.figures.at("ok_on_group_in_fault"), 1);
  EXPECT_EQ(v.figures.at("last_ok_in_fault_ms"), 2'002);
  EXPECT_EQ(v.figures.at("writes_resume_ms"), 9'002);
  const Verdict tight = check_send_outcomes(b.h, SendOutcomesBounds{0, 0, 0, 1'000, 0, "broker-a", 5'000});
  EXPECT_FALSE(tight.passed);
  EXPECT_NE(tight.first_violation.find("writes_resume_ms = 9002 ms exceeds the bound of 5000 ms"), std::string::npos)
      << tight.first_violation;
}

TEST(SendOutcomes, AGroupThatNeverTakesWritesAgainFails) {
  HistoryBuilder b = disk_full();
  b.h.sends.pop_back();
  const Verdict v = check_send_outcomes(b.h, SendOutcomesBounds{-1, -1, 0, 1'000, 0, "broker-a", 60'000});
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.first_violation.find("broker-a acknowledged no send started after its heal at 30000 ms"), std::string::npos)
      << v.first_violation;
  EXPECT_TRUE(check_send_outcomes(b.h, SendOutcomesBounds{-1, -1, 0, 1'000, 0, "broker-a", 0}).passed)
      << "without a bound it is measured only";
}

TEST(SendOutcomes, UnknownAndFailedAnswersBeyondTheirBoundsFail) {
  HistoryBuilder b = disk_full();
  timed_send(b, "producer-1", 0, queue(0, "broker-a"), 15'000, 18'000, SendOutcome::unknown);
  b.h.sends.back().detail = "timed_out: no reply within 3000 ms";
  timed_send(b, "producer-1", 1, queue(0, "broker-a"), 16'000, 16'001, SendOutcome::failed);
  Verdict v = check_send_outcomes(b.h, SendOutcomesBounds{});
  EXPECT_TRUE(v.passed) << "counted only: " << v.to_line();
  EXPECT_EQ(v.figures.at("unknown"), 1);
  EXPECT_EQ(v.figures.at("failed"), 1);
  EXPECT_EQ(v.figures.count("writes_resume_ms"), 0u) << "no group";
  v = check_send_outcomes(b.h, SendOutcomesBounds{1, 0});
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.violations, 1);
  EXPECT_NE(v.first_violation.find("1 sends ended unknown (at most 0); the first, producer-1#0, at 18000 ms: timed_out"),
            std::string::npos)
      << v.first_violation;
}

// A slow disk under SYNC_FLUSH: two sends wait 2.5 s and 4 s for their sync, one gets FLUSH_DISK_TIMEOUT.
TEST(SendOutcomes, TheSlowAndTheNotDurableCasesMustHappen) {
  HistoryBuilder b;
  timed_send(b, "producer-0", 0, queue(0), 0, 2);
  timed_send(b, "producer-0", 1, queue(0), 10'000, 12'500);
  timed_send(b, "producer-0", 2, queue(1), 13'000, 17'000);
  timed_send(b, "producer-0", 3, queue(2), 20'000, 25'000, SendOutcome::stored_not_durable);
  Verdict v = check_send_outcomes(b.h, SendOutcomesBounds{0, 0, 1, 1'000, 2});
  EXPECT_TRUE(v.passed) << v.to_line();
  EXPECT_EQ(v.figures.at("slow_ok"), 2);
  EXPECT_EQ(v.figures.at("slowest_ok_ms"), 4'000);
  EXPECT_EQ(v.figures.at("not_durable"), 1);
  v = check_send_outcomes(b.h, SendOutcomesBounds{0, 0, 2, 3'000, 2});
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.violations, 2);
  EXPECT_NE(v.first_violation.find("1 sends were answered stored-but-not-durable; the scenario needs at least 2"), std::string::npos)
      << v.first_violation;
}

}  // namespace
}  // namespace ferry::sim::check
