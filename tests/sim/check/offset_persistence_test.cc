#include "sim/check/offset_persistence.h"

#include <gtest/gtest.h>

#include "tests/sim/check/named_check_builder.h"

namespace ferry::sim::check {
namespace {

using testing::HistoryBuilder;
using testing::queue;

// c-0 consumes messages 0..9 of queue 0, one a second from 1 s; it is killed at 10.5 s and reads
// the last ones again at 12 s.
HistoryBuilder consumer_crash(std::uint64_t redeliver_from) {
  HistoryBuilder b;
  for (std::uint64_t i = 0; i < 10; ++i) b.send("p", i, queue(0), static_cast<std::int64_t>(i));
  for (std::uint64_t i = 0; i < 10; ++i) {
    b.consume("c-0", "g", "p", i, queue(0), static_cast<std::int64_t>(i), 1'000 + 1'000 * static_cast<std::int64_t>(i));
  }
  b.event(10'500, EventKind::crash, "c-0");
  for (std::uint64_t i = redeliver_from; i < 10; ++i) {
    b.consume("c-0", "g", "p", i, queue(0), static_cast<std::int64_t>(i), 12'000 + static_cast<std::int64_t>(i));
  }
  return b;
}

TEST(OffsetPersistence, RedeliveriesWithinThePersistIntervalBeforeACrashAreExplained) {
  const Verdict v = check_offset_persistence(consumer_crash(5).h, OffsetPersistenceBounds{5'000, 1'000});
  EXPECT_TRUE(v.passed) << v.to_line();
  EXPECT_EQ(v.figures.at("redelivered"), 5);
  EXPECT_EQ(v.figures.at("explained_consumer_crash"), 5);
  EXPECT_EQ(v.figures.at("oldest_redelivered_ms"), 4'500);
  EXPECT_EQ(v.figures.at("crashes"), 1);
}

TEST(OffsetPersistence, ARedeliveryOlderThanTheIntervalFails) {
  const Verdict v = check_offset_persistence(consumer_crash(2).h, OffsetPersistenceBounds{5'000, 1'000});
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.figures.at("unexplained"), 2);  // messages 2 and 3 were consumed more than 6 s before the crash
  EXPECT_NE(v.first_violation.find("p#2 first consumed by c-0 at 3000 ms"), std::string::npos) << v.first_violation;
}

// Found by clock-skew on real processes: producer-0#927 was sent to broker-b as it was killed (the
// send's outcome unknown: the kill came after the write) and retried on broker-a; broker-b came
// back with its copy. Two stored copies read once each are not a redelivery.
TEST(OffsetPersistence, ACopyStoredTwiceIsNotARedelivery) {
  HistoryBuilder b;
  b.send("p", 0, queue(0), 0);
  b.consume("c-0", "g", "p", 0, queue(0), 0, 1'000);
  b.consume("c-0", "g", "p", 0, queue(1), 7, 6'000);  // the other copy, no crash or rebalance around
  const Verdict v = check_offset_persistence(b.h, OffsetPersistenceBounds{5'000, 1'000});
  EXPECT_TRUE(v.passed) << v.to_line();
  EXPECT_EQ(v.figures.at("stored_twice"), 1);
  EXPECT_EQ(v.figures.at("redelivered"), 0);
  // The same copy read again still needs its explanation.
  b.consume("c-0", "g", "p", 0, queue(0), 0, 7'000);
  const Verdict again = check_offset_persistence(b.h, OffsetPersistenceBounds{5'000, 1'000});
  EXPECT_FALSE(again.passed);
  EXPECT_EQ(again.figures.at("unexplained"), 1);
}

TEST(OffsetPersistence, ARedeliveryWithNoCrashOrRebalanceFails) {
  HistoryBuilder b = consumer_crash(8);
  b.h.events.clear();
  const Verdict v = check_offset_persistence(b.h, OffsetPersistenceBounds{5'000, 1'000});
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.figures.at("unexplained"), 2);
}

TEST(OffsetPersistence, ABrokerCrashAllowsTwoIntervals) {
  HistoryBuilder b = consumer_crash(2);
  b.h.events.clear();
  b.event(10'500, EventKind::crash, "broker-a");  // the master of queue 0's group
  // What a consumer crash at the same time does not explain (the test above), a broker crash does:
  // the broker's last flush of its offset table may be an interval old, the commit it held another.
  const Verdict v = check_offset_persistence(b.h, OffsetPersistenceBounds{5'000, 1'000});
  EXPECT_TRUE(v.passed) << v.to_line();
  EXPECT_EQ(v.figures.at("explained_broker_crash"), 8);
  EXPECT_EQ(v.figures.at("unexplained"), 0);
}

TEST(OffsetPersistence, ANewHolderRereadsWhatTheOldOneConsumedInItsLastInterval) {
  HistoryBuilder b = consumer_crash(10);
  b.h.events.clear();
  // c-1 takes queue 0 at 12 s and reads 7..9 again (consumed by c-0 at 8..10 s).
  for (std::uint64_t i = 7; i < 10; ++i) b.consume("c-1", "g", "p", i, queue(0), static_cast<std::int64_t>(i), 12'000);
  Verdict v = check_offset_persistence(b.h, OffsetPersistenceBounds{5'000, 1'000});
  EXPECT_TRUE(v.passed) << v.to_line();
  EXPECT_EQ(v.figures.at("explained_rebalance"), 3);
  // From 1 s on: message 0 was consumed 11 s before c-1 took the queue.
  b.consume("c-1", "g", "p", 0, queue(0), 0, 12'100);
  v = check_offset_persistence(b.h, OffsetPersistenceBounds{5'000, 1'000});
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.first_violation.find("p#0 first consumed by c-0"), std::string::npos) << v.first_violation;
}

}  // namespace
}  // namespace ferry::sim::check
