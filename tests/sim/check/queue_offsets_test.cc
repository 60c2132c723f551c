#include "sim/check/queue_offsets.h"

#include <gtest/gtest.h>

#include "tests/sim/check/history_builder.h"

namespace ferry::sim::check {
namespace {

using testing::HistoryBuilder;
using testing::queue;

HistoryBuilder three_sends() {
  HistoryBuilder b;
  for (std::uint64_t i = 0; i < 3; ++i) b.send("producer-0", i, queue(0), static_cast<std::int64_t>(i));
  return b;
}

TEST(QueueOffsets, PassesWhenOffsetsGoForwardOrBackOnlyAfterACrashOrARebalance) {
  HistoryBuilder b = three_sends();
  b.consume("c-0", "g", "producer-0", 0, queue(0), 0, 100).consume("c-0", "g", "producer-0", 1, queue(0), 1, 110);
  b.event(120, EventKind::crash, "c-0");
  b.consume("c-0", "g", "producer-0", 1, queue(0), 1, 200);  // explained by the crash
  b.consume("c-1", "g", "producer-0", 1, queue(0), 1, 300);  // explained: the queue moved to c-1
  b.consume("c-1", "g", "producer-0", 2, queue(0), 2, 310);
  b.consume("c-9", "other", "producer-0", 2, queue(0), 2, 100);  // another group starts anywhere
  b.h.settings.offsets_dense = true;
  const Verdict v = check_queue_offsets(b.h);
  EXPECT_TRUE(v.passed) << v.to_line();
  EXPECT_EQ(v.figures.at("queues"), 2);
  EXPECT_EQ(v.figures.at("backward_explained"), 2);
  EXPECT_EQ(v.figures.at("holes"), 0);
}

TEST(QueueOffsets, ReportsAPlantedUnexplainedStepBack) {
  HistoryBuilder b = three_sends();
  b.event(50, EventKind::crash, "c-0");  // before: explains nothing
  b.consume("c-0", "g", "producer-0", 0, queue(0), 0, 100).consume("c-0", "g", "producer-0", 2, queue(0), 2, 110);
  b.consume("c-0", "g", "producer-0", 1, queue(0), 1, 120);
  const Verdict v = check_queue_offsets(b.h);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.figures.at("backward_unexplained"), 1);
  EXPECT_NE(v.first_violation.find("queueId=0] offset 1 (producer-0#1) consumed by c-0 (g) at 120 ms after offset 2"), std::string::npos)
      << v.first_violation;
}

// Found on real processes (clock-skew): a push consumer's concurrent listener consumes a batch on
// several threads, so a queue's first deliveries come in any order; only an offset delivered
// again is a step back for it.
TEST(QueueOffsets, AConcurrentConsumersFirstDeliveriesMayComeInAnyOrderButARepeatStillCounts) {
  HistoryBuilder b = three_sends();
  sim::ConsumerInfo info;
  info.group = "g";
  info.kind = "push-concurrently";
  b.h.record_consumer(testing::at_ms(0), "c-0", info);
  b.consume("c-0", "g", "producer-0", 0, queue(0), 0, 100).consume("c-0", "g", "producer-0", 2, queue(0), 2, 110);
  b.consume("c-0", "g", "producer-0", 1, queue(0), 1, 110);  // the same batch, another thread
  Verdict v = check_queue_offsets(b.h);
  EXPECT_TRUE(v.passed) << v.to_line();
  EXPECT_EQ(v.figures.at("backward_explained") + v.figures.at("backward_unexplained"), 0);
  b.consume("c-0", "g", "producer-0", 1, queue(0), 1, 200);  // delivered again, nothing explains it
  v = check_queue_offsets(b.h);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.figures.at("backward_unexplained"), 1);
  // An orderly consumer's order is its promise: the same first deliveries out of order fail.
  HistoryBuilder o = three_sends();
  info.kind = "push-orderly";
  o.h.record_consumer(testing::at_ms(0), "c-0", info);
  o.consume("c-0", "g", "producer-0", 0, queue(0), 0, 100).consume("c-0", "g", "producer-0", 2, queue(0), 2, 110);
  o.consume("c-0", "g", "producer-0", 1, queue(0), 1, 120);
  EXPECT_FALSE(check_queue_offsets(o.h).passed);
}

TEST(QueueOffsets, ReportsAPlantedHoleOnlyWhenTheScenarioAsksForDenseOffsets) {
  HistoryBuilder b = three_sends();
  b.consume("c-0", "g", "producer-0", 0, queue(0), 0, 100).consume("c-0", "g", "producer-0", 2, queue(0), 2, 110);
  Verdict v = check_queue_offsets(b.h);
  EXPECT_TRUE(v.passed) << v.to_line();
  EXPECT_EQ(v.figures.at("holes"), 1);
  b.h.settings.offsets_dense = true;
  v = check_queue_offsets(b.h);
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.first_violation.find("1 offsets between 0 and 2 never delivered, the first 1"), std::string::npos) << v.first_violation;
}

}  // namespace
}  // namespace ferry::sim::check
