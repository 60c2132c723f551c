#include "sim/check/key_order.h"

#include <gtest/gtest.h>

#include "tests/sim/check/history_builder.h"

namespace ferry::sim::check {
namespace {

using testing::HistoryBuilder;
using testing::at_ms;
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

// producer-0 sends key-a as #0 and #1 to broker-b's queue 1, then (its route changed at 25 ms:
// broker-b left) #2 and #3 to broker-a's queue 1, all ordered.
HistoryBuilder key_moved_by_a_route_change(bool route_changes) {
  HistoryBuilder b;
  b.send("producer-0", 0, queue(1, "broker-b"), 0, SendOutcome::ok, "key-a", true);   // sent at 0 ms
  b.send("producer-0", 1, queue(1, "broker-b"), 1, SendOutcome::ok, "key-a", true);   // 10 ms
  b.send("producer-0", 2, queue(1, "broker-a"), 0, SendOutcome::ok, "key-a", true);   // 20 ms
  b.send("producer-0", 3, queue(1, "broker-a"), 1, SendOutcome::ok, "key-a", true);   // 30 ms
  const RouteGroup two{2, 2, true};
  b.h.routes.push_back(RouteRecord{at_ms(0), "producer-0", "Orders", {{"broker-a", two}, {"broker-b", two}}});
  if (route_changes) b.h.routes.push_back(RouteRecord{at_ms(25), "producer-0", "Orders", {{"broker-a", two}}});
  // Another producer's and a NameServer's changes say nothing about producer-0's choices.
  b.h.routes.push_back(RouteRecord{at_ms(0), "producer-1", "Orders", {{"broker-a", two}}});
  b.h.routes.push_back(RouteRecord{at_ms(15), "producer-1", "Orders", {{"broker-a", two}, {"broker-b", two}}});
  b.h.routes.push_back(RouteRecord{at_ms(0), "namesrv-0", "Orders", {{"broker-a", two}, {"broker-b", two}}});
  b.h.routes.push_back(RouteRecord{at_ms(15), "namesrv-0", "Orders", {{"broker-a", two}}});
  return b;
}

TEST(KeyOrder, AKeyMovedByARouteChangeMayBeConsumedOutOfOrderAcrossItsQueues) {
  HistoryBuilder b = key_moved_by_a_route_change(true);
  // broker-b's queue was held up (a dead consumer's lock, the broker away): the new queue's
  // messages come first, each queue in its own order.
  b.consume("c-0", "g", "producer-0", 2, queue(1, "broker-a"), 0, 100);
  b.consume("c-0", "g", "producer-0", 3, queue(1, "broker-a"), 1, 110);
  b.consume("c-1", "g", "producer-0", 0, queue(1, "broker-b"), 0, 500);
  b.consume("c-1", "g", "producer-0", 1, queue(1, "broker-b"), 1, 510);
  const Verdict v = check_key_order(b.h);
  EXPECT_TRUE(v.passed) << v.to_line();
  EXPECT_EQ(v.figures.at("reorders"), 0);
  EXPECT_EQ(v.figures.at("moved_reorders"), 2);
}

TEST(KeyOrder, AKeyThatChangesQueueWithoutARouteChangeIsAReorder) {
  HistoryBuilder b = key_moved_by_a_route_change(false);  // as a selector that ignores the key
  b.consume("c-0", "g", "producer-0", 2, queue(1, "broker-a"), 0, 100);
  b.consume("c-1", "g", "producer-0", 0, queue(1, "broker-b"), 0, 500);
  const Verdict v = check_key_order(b.h);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.figures.at("reorders"), 1);
  EXPECT_EQ(v.figures.at("moved_reorders"), 0);
  EXPECT_NE(v.first_violation.find("producer-0#0 (MessageQueue"), std::string::npos) << v.first_violation;
  EXPECT_NE(v.first_violation.find("after producer-0#2"), std::string::npos) << v.first_violation;
  EXPECT_NE(v.first_violation.find("no route change"), std::string::npos) << v.first_violation;
}

TEST(KeyOrder, ARouteChangeDoesNotExcuseAReorderWithinOneQueue) {
  HistoryBuilder b = key_moved_by_a_route_change(true);
  b.consume("c-0", "g", "producer-0", 2, queue(1, "broker-a"), 0, 100);  // moved: excused
  b.consume("c-1", "g", "producer-0", 1, queue(1, "broker-b"), 1, 500);  // moved: excused
  b.consume("c-1", "g", "producer-0", 0, queue(1, "broker-b"), 0, 510);  // after #1 of its own queue
  const Verdict v = check_key_order(b.h);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.figures.at("reorders"), 1);
  EXPECT_EQ(v.figures.at("moved_reorders"), 1);
  EXPECT_NE(v.first_violation.find("producer-0#0"), std::string::npos) << v.first_violation;
  EXPECT_NE(v.first_violation.find("after producer-0#1"), std::string::npos) << v.first_violation;
  EXPECT_EQ(v.first_violation.find("no route change"), std::string::npos) << v.first_violation;
}

}  // namespace
}  // namespace ferry::sim::check
