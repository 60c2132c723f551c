#include "sim/check/key_order.h"

#include <gtest/gtest.h>

#include "tests/sim/check/history_builder.h"

namespace ferry::sim::check {
namespace {

using testing::HistoryBuilder;
using testing::queue;

// producer-0 sends key-a as #0, #2, #3 (queue 1) and key-b as #1 (queue 2), ordered; #4 key-a
// unacknowledged.
HistoryBuilder ordered_sends() {
  HistoryBuilder b;
  b.send("producer-0", 0, queue(1), 0, SendOutcome::ok, "key-a", true);
  b.send("producer-0", 1, queue(2), 0, SendOutcome::ok, "key-b", true);
  b.send("producer-0", 2, queue(1), 1, SendOutcome::ok, "key-a", true);
  b.send("producer-0", 3, queue(1), 2, SendOutcome::ok, "key-a", true);
  b.send("producer-0", 4, queue(1), 3, SendOutcome::unknown, "key-a", true);
  return b;
}

TEST(KeyOrder, PassesWhenEachKeyIsConsumedInOrderWithARepeatedSuffix) {
  HistoryBuilder b = ordered_sends();
  b.consume("c-0", "g", "producer-0", 1, queue(2), 0, 100);  // key-b between key-a's: fine
  b.consume("c-0", "g", "producer-0", 0, queue(1), 0, 100);
  b.consume("c-0", "g", "producer-0", 2, queue(1), 1, 110);
  b.consume("c-0", "g", "producer-0", 4, queue(1), 3, 115);  // not acknowledged: not judged
  b.consume("c-0", "g", "producer-0", 3, queue(1), 2, 120);
  b.event(150, EventKind::crash, "c-0");
  b.consume("c-1", "g", "producer-0", 2, queue(1), 1, 300);  // a replay of the suffix
  b.consume("c-1", "g", "producer-0", 3, queue(1), 2, 300);
  const Verdict v = check_key_order(b.h);
  EXPECT_TRUE(v.passed) << v.to_line();
  EXPECT_EQ(v.figures.at("ordered_acked"), 4);
  EXPECT_EQ(v.figures.at("keys"), 2);
  EXPECT_EQ(v.figures.at("reorders"), 0);
}

TEST(KeyOrder, ReportsAPlantedReorderNamingBothMessages) {
  HistoryBuilder b = ordered_sends();
  b.consume("c-0", "g", "producer-0", 0, queue(1), 0, 100);
  b.consume("c-0", "g", "producer-0", 3, queue(1), 2, 110);
  b.consume("c-0", "g", "producer-0", 2, queue(1), 1, 120);  // #2 first seen after #3
  const Verdict v = check_key_order(b.h);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.figures.at("reorders"), 1);
  EXPECT_NE(v.first_violation.find("key key-a of producer-0: producer-0#2"), std::string::npos) << v.first_violation;
  EXPECT_NE(v.first_violation.find("offset 1"), std::string::npos) << v.first_violation;
  EXPECT_NE(v.first_violation.find("after producer-0#3"), std::string::npos) << v.first_violation;
}

TEST(KeyOrder, UnorderedSendsAreNotJudged) {
  HistoryBuilder b;
  b.send("producer-0", 0, queue(1), 0, SendOutcome::ok, "key-a", false).send("producer-0", 1, queue(1), 1, SendOutcome::ok, "key-a", false);
  b.consume("c-0", "g", "producer-0", 1, queue(1), 1, 100).consume("c-0", "g", "producer-0", 0, queue(1), 0, 110);
  EXPECT_TRUE(check_key_order(b.h).passed);
}

}  // namespace
}  // namespace ferry::sim::check
