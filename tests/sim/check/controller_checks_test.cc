// The controller-mode checkers on hand-built histories: controller-history (one history of
// decisions, epochs only grow, no epoch from nowhere), one-master-per-epoch (the fence), and the
// failover check's election figures.
#include <gtest/gtest.h>

#include "sim/check/controller_history.h"
#include "sim/check/failover.h"
#include "sim/check/one_master_per_epoch.h"
#include "tests/sim/check/named_check_builder.h"

namespace ferry::sim::check {
namespace {

using testing::at_ms;
using testing::HistoryBuilder;
using testing::queue;
using testing::timed_send;

void view(History& h, std::int64_t ms, const std::string& controller, std::int32_t epoch, const std::string& master,
          std::int32_t sss_epoch, std::vector<std::string> sss, const std::string& group = "broker-a") {
  h.controller_views.push_back(ControllerViewRecord{at_ms(ms), controller, group, epoch, master, sss_epoch, std::move(sss)});
}

void acked(History& h, std::int64_t ms, const std::string& broker, std::int32_t epoch, std::map<std::int32_t, std::int64_t> counts) {
  h.broker_epochs.push_back(BrokerEpochRecord{at_ms(ms), broker, "broker-a", epoch, std::move(counts)});
}

// Three controllers agree: broker-a master in epoch 1, broker-a-s1 elected in epoch 2 at 32 s.
History agreed_failover() {
  History h;
  for (const char* c : {"controller-0", "controller-1", "controller-2"}) {
    view(h, 1'000, c, 1, "broker-a", 2, {"broker-a", "broker-a-s1"});
    view(h, 32'000, c, 2, "broker-a-s1", 3, {"broker-a-s1"});
  }
  acked(h, 10'000, "broker-a", 1, {{1, 40}});
  acked(h, 40'000, "broker-a-s1", 2, {{2, 25}});
  return h;
}

TEST(ControllerHistory, AgreeingControllersPass) {
  const Verdict v = check_controller_history(agreed_failover());
  EXPECT_TRUE(v.passed) << v.to_line();
  EXPECT_EQ(v.figures.at("elections"), 2);
  EXPECT_EQ(v.figures.at("max_master_epoch"), 2);
  EXPECT_EQ(v.figures.at("controllers"), 3);
}

TEST(ControllerHistory, TwoMastersForOneEpochFail) {
  History h = agreed_failover();
  view(h, 33'000, "controller-2", 2, "broker-a-s2", 3, {"broker-a-s2"});  // a diverged state machine
  const Verdict v = check_controller_history(h);
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.first_violation.find("two histories of broker-a at masterEpoch 2"), std::string::npos) << v.first_violation;
}

TEST(ControllerHistory, AnEpochGoingBackWithinALifeFails) {
  History h = agreed_failover();
  view(h, 35'000, "controller-1", 1, "broker-a", 2, {"broker-a", "broker-a-s1"});
  const Verdict v = check_controller_history(h);
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.first_violation.find("controller-1 went back on broker-a"), std::string::npos) << v.first_violation;
}

TEST(ControllerHistory, ARestartedControllerReplaysFromTheStart) {
  History h = agreed_failover();
  h.record_event(at_ms(34'000), EventKind::crash, "controller-1", "test");
  h.record_event(at_ms(35'000), EventKind::start, "controller-1", "test");
  view(h, 35'100, "controller-1", 1, "broker-a", 2, {"broker-a", "broker-a-s1"});  // replaying its log
  view(h, 35'200, "controller-1", 2, "broker-a-s1", 3, {"broker-a-s1"});
  const Verdict v = check_controller_history(h);
  EXPECT_TRUE(v.passed) << v.to_line();
}

TEST(ControllerHistory, ABrokerEpochNoControllerGaveFails) {
  History h = agreed_failover();
  acked(h, 50'000, "broker-a", 3, {});
  const Verdict v = check_controller_history(h);
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.first_violation.find("broker-a holds masterEpoch 3"), std::string::npos) << v.first_violation;
}

TEST(OneMasterPerEpoch, OneBrokerAnEpochPasses) {
  const Verdict v = check_one_master_per_epoch(agreed_failover());
  EXPECT_TRUE(v.passed) << v.to_line();
  EXPECT_EQ(v.figures.at("epochs_with_acks"), 2);
  EXPECT_EQ(v.figures.at("acks"), 65);
  EXPECT_EQ(v.figures.at("unseen_epochs"), 0);
}

TEST(OneMasterPerEpoch, AnOldMasterAcknowledgingInTheNewEpochFails) {
  History h = agreed_failover();
  acked(h, 41'000, "broker-a", 2, {{1, 40}, {2, 3}});  // the fence failed: broker-a took writes in epoch 2
  const Verdict v = check_one_master_per_epoch(h);
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.first_violation.find("two brokers of broker-a acknowledged writes in masterEpoch 2"), std::string::npos)
      << v.first_violation;
}

TEST(OneMasterPerEpoch, AckingInAnEpochOfAnotherMasterFails) {
  History h = agreed_failover();
  h.broker_epochs.erase(h.broker_epochs.begin() + 1);  // broker-a-s1 acknowledged nothing...
  acked(h, 41'000, "broker-a-s2", 2, {{2, 5}});        // ...but broker-a-s2 did, in s1's epoch
  const Verdict v = check_one_master_per_epoch(h);
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.first_violation.find("whose master the controllers named broker-a-s1"), std::string::npos) << v.first_violation;
}

TEST(OneMasterPerEpoch, EpochZeroIsNotJudged) {
  History h;
  acked(h, 1'000, "broker-a", 0, {{0, 10}});
  acked(h, 2'000, "broker-a-s1", 0, {{0, 10}});  // a promoted slave outside controller mode
  EXPECT_TRUE(check_one_master_per_epoch(h).passed);
}

TEST(FailoverInControllerMode, TheDeathIsTheNamedMastersAndTheElectionIsMeasured) {
  HistoryBuilder b;
  b.h = agreed_failover();
  b.event(5'000, EventKind::crash, "broker-a-s2");  // a slave's crash is not the master's death
  b.event(20'000, EventKind::crash, "broker-a");
  timed_send(b, "p", 0, queue(0), 19'000, 19'010);
  timed_send(b, "p", 1, queue(0, "broker-b"), 20'100, 20'150);
  timed_send(b, "p", 2, queue(1), 50'000, 50'200);
  const Verdict v = check_failover(b.h, FailoverBounds{"broker-a", 0, 0, 0, 15'000, 35'000});
  EXPECT_TRUE(v.passed) << v.to_line();
  EXPECT_EQ(v.figures.at("death_at_ms"), 20'000);
  EXPECT_EQ(v.figures.at("elected_ms"), 12'000);
  EXPECT_EQ(v.figures.at("elected_epoch"), 2);
  EXPECT_EQ(v.figures.at("group_writes_ms"), 30'200);
  const Verdict tight = check_failover(b.h, FailoverBounds{"broker-a", 0, 0, 0, 10'000, 0});
  EXPECT_FALSE(tight.passed);
  EXPECT_NE(tight.first_violation.find("elected_ms = 12000 ms exceeds the bound of 10000 ms"), std::string::npos)
      << tight.first_violation;
}

}  // namespace
}  // namespace ferry::sim::check
