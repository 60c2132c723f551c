#include "sim/check/failover.h"

#include <gtest/gtest.h>

#include "sim/check/checkers.h"
#include "tests/sim/check/named_check_builder.h"

namespace ferry::sim::check {
namespace {

using testing::HistoryBuilder;
using testing::queue;
using testing::timed_send;

// broker-a's master dies at 20 s with two unread messages; consumers read one from the slave at
// 33 s; the slave is promoted at 40 s and takes a write at 41.5 s. Sends resume on broker-b at 20.2 s.
HistoryBuilder failover_run() {
  HistoryBuilder b;
  b.h.subscriptions["readers"] = {"Orders"};
  timed_send(b, "p", 0, queue(0), 1'000, 1'005);
  timed_send(b, "p", 1, queue(1), 19'000, 19'005);
  timed_send(b, "p", 2, queue(0, "broker-b"), 20'100, 20'200);
  timed_send(b, "p", 3, queue(0), 20'300, 23'300, SendOutcome::unknown);
  timed_send(b, "p", 4, queue(1), 41'000, 41'500);
  b.consume("c", "readers", "p", 0, queue(0), 0, 1'100);
  b.h.consumes.back().pulled_from = 0;
  b.consume("c", "readers", "p", 2, queue(0, "broker-b"), 2, 20'300);
  b.h.consumes.back().pulled_from = 0;
  b.consume("c", "readers", "p", 1, queue(1), 1, 33'000);
  b.h.consumes.back().pulled_from = 1;
  b.event(20'000, EventKind::crash, "broker-a");
  b.event(40'000, EventKind::promote, "broker-a-s1");
  return b;
}

TEST(Failover, MeasuresEachFigureFromTheHistory) {
  const Verdict v = check_failover(failover_run().h, FailoverBounds{"broker-a", 5'000, 45'000, 35'000});
  EXPECT_TRUE(v.passed) << v.to_line();
  EXPECT_EQ(v.figures.at("sends_resume_ms"), 200);
  EXPECT_EQ(v.figures.at("failed_sends"), 1);
  EXPECT_EQ(v.figures.at("backlog_at_death"), 1);
  EXPECT_EQ(v.figures.at("consume_from_slave_ms"), 13'000);
  EXPECT_EQ(v.figures.at("writes_after_promotion_ms"), 1'500);
}

TEST(Failover, AFigurePastItsBoundFails) {
  const Verdict v = check_failover(failover_run().h, FailoverBounds{"broker-a", 5'000, 10'000, 0});
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.first_violation.find("consume_from_slave_ms = 13000 ms exceeds the bound of 10000 ms"), std::string::npos)
      << v.first_violation;
}

// A named check the settings list as figures only (a scenario's [swarm] section under swarm) is
// judged and printed with its violations, and passes.
TEST(Failover, AFigureOnlyCheckPrintsItsViolationsAndPasses) {
  HistoryBuilder b = failover_run();
  b.h.settings.named["failover"] = {{"group", std::string("broker-a")},
                                    {"sends_resume_within", Duration(std::chrono::milliseconds(5'000))},
                                    {"consume_from_slave_within", Duration(std::chrono::milliseconds(10'000))}};
  auto verdict_of = [](const History& h) {
    for (const Verdict& v : run_all_checks(h)) {
      if (v.name == "failover") return v;
    }
    ADD_FAILURE() << "no failover verdict";
    return Verdict{};
  };
  const Verdict strict = verdict_of(b.h);
  EXPECT_FALSE(strict.passed) << strict.to_line();
  b.h.settings.figures_only = {"failover"};
  const Verdict loose = verdict_of(b.h);
  EXPECT_TRUE(loose.passed);
  EXPECT_TRUE(loose.figures_only);
  EXPECT_EQ(loose.violations, strict.violations);
  EXPECT_EQ(loose.to_line().rfind("failover: PASS (figures only) ", 0), 0u) << loose.to_line();
  EXPECT_NE(loose.to_line().find("consume_from_slave_ms = 13000 ms exceeds"), std::string::npos) << loose.to_line();
}

TEST(Failover, AMessagePulledFromTheMasterBeforeItDiedIsNoSlaveRead) {
  HistoryBuilder b = failover_run();
  b.h.consumes.back().pulled_from = 0;  // consumed after the death, but the master had served it
  const Verdict v = check_failover(b.h, FailoverBounds{"broker-a", 0, 45'000, 0});
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.first_violation.find("1 messages of broker-a were left unread at its death and none was consumed"), std::string::npos)
      << v.first_violation;
}

TEST(Failover, NoBacklogIsNoEvidenceAndFailsABoundInsteadOfPassingByAccident) {
  HistoryBuilder b = failover_run();
  b.h.consumes.back().at = testing::at_ms(19'500);  // read before the death: nothing left for the slave
  const Verdict v = check_failover(b.h, FailoverBounds{"broker-a", 0, 45'000, 0});
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.figures.at("backlog_at_death"), 0);
  EXPECT_NE(v.first_violation.find("make the consumers lag"), std::string::npos) << v.first_violation;
  EXPECT_TRUE(check_failover(b.h, FailoverBounds{"broker-a", 0, 0, 0}).passed) << "with no bound it is measured only";
}

TEST(Failover, NoWriteAfterThePromotionFails) {
  HistoryBuilder b = failover_run();
  b.h.sends.back().queue = queue(1, "broker-b");
  const Verdict v = check_failover(b.h, FailoverBounds{"broker-a", 0, 0, 35'000});
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.first_violation.find("no send started after the promotion was stored on broker-a"), std::string::npos)
      << v.first_violation;
}

TEST(Failover, AMasterThatNeverDiedFails) {
  HistoryBuilder b = failover_run();
  b.h.events.clear();
  const Verdict v = check_failover(b.h, FailoverBounds{"broker-a", 0, 0, 0});
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.first_violation.find("never died"), std::string::npos) << v.first_violation;
}

}  // namespace
}  // namespace ferry::sim::check
