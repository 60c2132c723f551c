// The transactions checker, and what a transaction's fate does to lost-acked: a committed
// transaction is owed to every subscribed group, a rolled-back one to nobody and must never arrive.
#include "sim/check/transactions.h"

#include <gtest/gtest.h>

#include "sim/check/lost_acked.h"
#include "tests/sim/check/history_builder.h"

namespace ferry::sim::check {
namespace {

using testing::at_ms;
using testing::HistoryBuilder;
using testing::queue;

// producer-0#0 committed by its verdict, #1 rolled back by its verdict, #2 left UNKNOW and
// committed by the check, #3 rolled back by the check (its producer died before its verdict).
HistoryBuilder transactions() {
  HistoryBuilder b;
  b.h.subscriptions["g"] = {"Orders"};
  for (std::uint64_t seq = 0; seq < 4; ++seq) {
    b.send("producer-0", seq, queue(1), -1);
    SendRecord& s = b.h.sends.back();
    s.fate = seq % 2 == 0 ? TxFate::commit : TxFate::rollback;
    s.by_check = seq == 2;
    if (seq != 3) s.verdict_at = s.done_at + std::chrono::milliseconds(100);
  }
  b.consume("c-0", "g", "producer-0", 0, queue(1), 0, 200);
  b.consume("c-0", "g", "producer-0", 2, queue(1), 1, 9'000);
  return b;
}

TEST(Transactions, CommittedOnesArriveRolledBackOnesDoNot) {
  HistoryBuilder b = transactions();
  const Verdict v = check_transactions(b.h);
  EXPECT_TRUE(v.passed) << v.to_line();
  EXPECT_EQ(v.figures.at("transactions"), 4);
  EXPECT_EQ(v.figures.at("committed"), 2);
  EXPECT_EQ(v.figures.at("rolled_back"), 2);
  EXPECT_EQ(v.figures.at("by_check"), 1);
  EXPECT_EQ(v.figures.at("no_verdict"), 1);
  EXPECT_EQ(v.figures.at("resolved_by_check"), 1);
  EXPECT_EQ(v.figures.at("check_resolve_max_ms"), 9'000 - 25);  // from #2's acknowledgement (20 + 5 ms)
  EXPECT_EQ(v.figures.at("verdict_to_delivery_max_ms"), 200 - 105);
  EXPECT_EQ(v.figures.at("undelivered_commits"), 0);
  const Verdict lost = check_lost_acked(b.h);
  EXPECT_TRUE(lost.passed) << "a rolled-back transaction is owed to nobody: " << lost.to_line();
  EXPECT_EQ(lost.figures.at("acked"), 2);
}

TEST(Transactions, ARolledBackMessageDeliveredFailsAndSaysHowItWasRolledBack) {
  HistoryBuilder b = transactions();
  b.consume("c-1", "g", "producer-0", 3, queue(1), 2, 12'000);
  const Verdict v = check_transactions(b.h);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.violations, 1);
  EXPECT_EQ(v.first_violation,
            "producer-0#3 was rolled back (by the answer to the broker's check) and yet delivered to c-1 (group g) at 12000 ms "
            "from MessageQueue [topic=Orders, brokerName=broker-a, queueId=1] offset 2")
      << v.first_violation;
  EXPECT_EQ(v.first_violation_at, at_ms(12'000));
}

TEST(Transactions, ACommittedOneNeverDeliveredIsLostAcked) {
  HistoryBuilder b = transactions();
  b.h.consumes.pop_back();  // #2, committed by the check, never arrives
  EXPECT_TRUE(check_transactions(b.h).passed);
  EXPECT_EQ(check_transactions(b.h).figures.at("undelivered_commits"), 1);
  const Verdict lost = check_lost_acked(b.h);
  EXPECT_FALSE(lost.passed);
  EXPECT_NE(lost.first_violation.find("producer-0#2"), std::string::npos) << lost.first_violation;
}

}  // namespace
}  // namespace ferry::sim::check
