// Each checker stamps its first violation with the virtual time it happened (Verdict::
// first_violation_at): the ack of a lost message, the delivery of an unexpected, duplicate,
// reordered or out-of-place one, the fault event a named check measures from. mqsim prints the
// nodes' log lines around that time. A passing verdict has no time.
#include <gtest/gtest.h>

#include "sim/check/checkers.h"
#include "sim/check/duplicates.h"
#include "sim/check/failover.h"
#include "sim/check/key_order.h"
#include "sim/check/lost_acked.h"
#include "sim/check/queue_offsets.h"
#include "sim/check/unexpected.h"
#include "tests/sim/check/named_check_builder.h"

namespace ferry::sim::check {
namespace {

using testing::at_ms;
using testing::HistoryBuilder;
using testing::queue;
using testing::timed_send;

TEST(ViolationTime, ViolationWithATimeKeepsTheFirstOnly) {
  Verdict v;
  v.violation("no time");
  v.violation("second", at_ms(5));
  EXPECT_FALSE(v.first_violation_at.has_value()) << "the first violation had no time";
  Verdict w;
  w.violation("first", at_ms(7));
  w.violation("second", at_ms(3));
  ASSERT_TRUE(w.first_violation_at.has_value());
  EXPECT_EQ(*w.first_violation_at, at_ms(7));
  EXPECT_EQ(w.first_violation, "first");
}

TEST(ViolationTime, LostAckedIsTimedAtTheAck) {
  HistoryBuilder b;
  b.h.subscriptions["g"] = {"Orders"};
  timed_send(b, "p", 0, queue(0), 1'000, 1'250);
  const Verdict v = check_lost_acked(b.h);
  ASSERT_FALSE(v.passed);
  ASSERT_TRUE(v.first_violation_at.has_value());
  EXPECT_EQ(*v.first_violation_at, at_ms(1'250));
}

TEST(ViolationTime, DeliveryCheckersAreTimedAtTheDelivery) {
  HistoryBuilder b;
  b.send("p", 0, queue(0), 0).send("p", 1, queue(0), 1);
  b.consume("c", "g", "p", 1, queue(0), 1, 100);
  b.consume("c", "g", "p", 0, queue(0), 0, 200);      // backward, unexplained
  b.consume("c", "g", "p", 0, queue(0), 0, 300);      // a duplicate
  b.consume("c", "g", "ghost", 9, queue(0), 5, 400);  // never sent
  b.h.settings.duplicates_max = 0;
  const Verdict unexpected = check_unexpected(b.h);
  ASSERT_TRUE(unexpected.first_violation_at.has_value());
  EXPECT_EQ(*unexpected.first_violation_at, at_ms(400));
  const Verdict duplicates = check_duplicates(b.h);
  ASSERT_FALSE(duplicates.passed);
  ASSERT_TRUE(duplicates.first_violation_at.has_value());
  EXPECT_EQ(*duplicates.first_violation_at, at_ms(300));
  const Verdict offsets = check_queue_offsets(b.h);
  ASSERT_FALSE(offsets.passed);
  ASSERT_TRUE(offsets.first_violation_at.has_value());
  EXPECT_EQ(*offsets.first_violation_at, at_ms(200));
}

TEST(ViolationTime, AHoleIsTimedWhenTheOffsetAfterItWasConsumed) {
  HistoryBuilder b;
  b.send("p", 0, queue(0), 0).send("p", 1, queue(0), 1).send("p", 2, queue(0), 2);
  b.consume("c", "g", "p", 0, queue(0), 0, 100);
  b.consume("c", "g", "p", 2, queue(0), 2, 700);
  b.h.settings.offsets_dense = true;
  const Verdict v = check_queue_offsets(b.h);
  ASSERT_FALSE(v.passed);
  ASSERT_TRUE(v.first_violation_at.has_value());
  EXPECT_EQ(*v.first_violation_at, at_ms(700));
}

TEST(ViolationTime, KeyOrderIsTimedAtTheLateDelivery) {
  HistoryBuilder b;
  b.send("p", 0, queue(0), 0, SendOutcome::ok, "k", true).send("p", 1, queue(0), 1, SendOutcome::ok, "k", true);
  b.consume("c", "g", "p", 1, queue(0), 1, 100);
  b.consume("c", "g", "p", 0, queue(0), 0, 900);
  const Verdict v = check_key_order(b.h);
  ASSERT_FALSE(v.passed);
  ASSERT_TRUE(v.first_violation_at.has_value());
  EXPECT_EQ(*v.first_violation_at, at_ms(900));
}

TEST(ViolationTime, FailoverIsTimedAtTheDeath) {
  HistoryBuilder b;
  b.h.subscriptions["readers"] = {"Orders"};
  timed_send(b, "p", 0, queue(0), 1'000, 1'005);
  timed_send(b, "p", 1, queue(0, "broker-b"), 20'100, 29'000);
  b.event(20'000, EventKind::crash, "broker-a");
  const Verdict v = check_failover(b.h, FailoverBounds{"broker-a", 5'000, 0, 0});
  ASSERT_FALSE(v.passed) << v.to_line();
  ASSERT_TRUE(v.first_violation_at.has_value());
  EXPECT_EQ(*v.first_violation_at, at_ms(20'000));
}

TEST(ViolationTime, APassingVerdictHasNoTime) {
  HistoryBuilder b;
  b.send("p", 0, queue(0), 0);
  b.consume("c", "g", "p", 0, queue(0), 0, 100);
  for (const Verdict& v : run_all_checks(b.h)) {
    EXPECT_TRUE(v.passed) << v.to_line();
    EXPECT_FALSE(v.first_violation_at.has_value()) << v.name;
  }
}

}  // namespace
}  // namespace ferry::sim::check
