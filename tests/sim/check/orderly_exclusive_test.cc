#include "sim/check/orderly_exclusive.h"

#include <gtest/gtest.h>

#include "tests/sim/check/history_builder.h"

namespace ferry::sim::check {
namespace {

using testing::at_ms;
using testing::HistoryBuilder;
using testing::queue;

HistoryBuilder sends(int n) {
  HistoryBuilder b;
  for (int i = 0; i < n; ++i) b.send("producer-0", static_cast<std::uint64_t>(i), queue(0), i);
  return b;
}

// A delivery of producer-0#seq by an orderly clustering consumer whose lock was confirmed at lock_ms.
void orderly(HistoryBuilder& b, const std::string& consumer, std::uint64_t seq, std::int64_t ms, std::int64_t lock_ms,
             const std::string& group = "g") {
  b.consume(consumer, group, "producer-0", seq, queue(0), static_cast<std::int64_t>(seq), ms);
  b.h.consumes.back().lock_at = at_ms(lock_ms);
}

TEST(OrderlyExclusive, AQueueHandedOverAfterTheUnlockPasses) {
  HistoryBuilder b = sends(6);
  orderly(b, "c-0", 0, 1'000, 500);
  orderly(b, "c-0", 1, 5'000, 500);
  orderly(b, "c-0", 2, 21'000, 20'500);  // renewed at 20.5 s
  orderly(b, "c-1", 3, 30'000, 25'000);  // c-0 dropped it after 21 s; c-1 locked at 25 s
  orderly(b, "c-1", 4, 31'000, 25'000);
  orderly(b, "c-9", 5, 22'000, 500, "other");  // another group holds its own lock
  const Verdict v = check_orderly_exclusive(b.h);
  EXPECT_TRUE(v.passed) << v.to_line();
  EXPECT_EQ(v.figures.at("orderly_deliveries"), 6);
  EXPECT_EQ(v.figures.at("queues"), 2);
  EXPECT_EQ(v.figures.at("overlaps"), 0);
}

TEST(OrderlyExclusive, DeliveriesWithoutALockTimeAreNotJudged) {
  HistoryBuilder b = sends(2);
  b.consume("c-0", "g", "producer-0", 0, queue(0), 0, 1'000);  // concurrent or broadcast: no lock
  b.consume("c-1", "g", "producer-0", 1, queue(0), 1, 1'001);
  const Verdict v = check_orderly_exclusive(b.h);
  EXPECT_TRUE(v.passed) << v.to_line();
  EXPECT_EQ(v.figures.at("orderly_deliveries"), 0);
}

TEST(OrderlyExclusive, ReportsTwoConsumersHoldingOneQueueAtOnce) {
  HistoryBuilder b = sends(4);
  orderly(b, "c-0", 0, 1'000, 500);
  orderly(b, "c-1", 1, 13'000, 12'000);  // c-1 got the lock at 12 s ...
  orderly(b, "c-0", 2, 15'000, 500);     // ... while c-0, locked since 0.5 s, still consumed at 15 s
  orderly(b, "c-1", 3, 16'000, 12'000);
  const Verdict v = check_orderly_exclusive(b.h);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.figures.at("overlaps"), 1);
  EXPECT_NE(v.first_violation.find("c-0 held it"), std::string::npos) << v.first_violation;
  EXPECT_NE(v.first_violation.find("c-1 held it (lock confirmed at 12000 ms"), std::string::npos) << v.first_violation;
  EXPECT_NE(v.first_violation.find("3000 ms of both"), std::string::npos) << v.first_violation;
  ASSERT_TRUE(v.first_violation_at.has_value());
  EXPECT_EQ(ms_of(*v.first_violation_at), 15'000);
}

TEST(OrderlyExclusive, AnOverlapWithinTheClockSlackIsNotAViolation) {
  HistoryBuilder b = sends(2);
  orderly(b, "c-0", 0, 10'300, 500);
  orderly(b, "c-1", 1, 11'000, 10'000);  // 300 ms of overlap: within what drifting clocks explain
  EXPECT_TRUE(check_orderly_exclusive(b.h).passed);
}

}  // namespace
}  // namespace ferry::sim::check
