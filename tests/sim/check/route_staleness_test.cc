#include "sim/check/route_staleness.h"

#include <gtest/gtest.h>

#include "tests/sim/check/named_check_builder.h"

namespace ferry::sim::check {
namespace {

using testing::HistoryBuilder;
using testing::queue;
using testing::registration;
using testing::route;
using testing::timed_send;

// broker-b registers at 0 s and 30 s and goes silent at 40 s; the NameServer drops it at 155 s
// (125 s after its last registration); producer-0 follows at 170 s; broker-b is back at 200 s.
HistoryBuilder silent_broker() {
  HistoryBuilder b;
  registration(b, 0, "namesrv-0", "broker-b");
  registration(b, 30'000, "namesrv-0", "broker-b");
  route(b, 1'000, "namesrv-0", {{"broker-a", true}, {"broker-b", true}});
  route(b, 2'000, "producer-0", {{"broker-a", true}, {"broker-b", true}});
  b.event(40'000, EventKind::fault, "broker-b");
  route(b, 155'000, "namesrv-0", {{"broker-a", true}});
  route(b, 170'000, "producer-0", {{"broker-a", true}});
  b.event(200'000, EventKind::heal, "broker-b");
  registration(b, 200'500, "namesrv-0", "broker-b");
  route(b, 200'500, "namesrv-0", {{"broker-a", true}, {"broker-b", true}});
  route(b, 210'000, "producer-0", {{"broker-a", true}, {"broker-b", true}});
  timed_send(b, "producer-0", 0, queue(0, "broker-a"), 50'000, 53'500);
  timed_send(b, "producer-0", 1, queue(0, "broker-b"), 60'000, 63'000, SendOutcome::unknown);
  return b;
}

TEST(RouteStaleness, MeasuresTheNameServerAndClientDelays) {
  const Verdict v = check_route_staleness(silent_broker().h, RouteStalenessBounds{"broker-b", 130'000, 30'000});
  EXPECT_TRUE(v.passed) << v.to_line();
  EXPECT_EQ(v.figures.at("namesrv_drop_ms"), 125'000);
  EXPECT_EQ(v.figures.at("client_route_ms"), 15'000);
  EXPECT_EQ(v.figures.at("failed_sends"), 1);
  EXPECT_EQ(v.figures.at("slow_sends"), 2);
  EXPECT_EQ(v.figures.at("namesrv_back_ms"), 500);
  EXPECT_EQ(v.figures.at("client_back_ms"), 9'500);
}

TEST(RouteStaleness, ANameServerThatKeepsADeadBrokerTooLongFails) {
  const Verdict v = check_route_staleness(silent_broker().h, RouteStalenessBounds{"broker-b", 120'000, 30'000});
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.first_violation.find("namesrv_drop_ms = 125000 ms exceeds the bound of 120000 ms"), std::string::npos)
      << v.first_violation;
}

// The figures are distances between observed times, each observed up to kObserveEvery late.
TEST(RouteStaleness, ABoundAllowsOneObservationInterval) {
  EXPECT_TRUE(check_route_staleness(silent_broker().h, RouteStalenessBounds{"broker-b", 124'800, 30'000}).passed);
  const Verdict v = check_route_staleness(silent_broker().h, RouteStalenessBounds{"broker-b", 124'700, 30'000});
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.first_violation.find("namesrv_drop_ms = 125000 ms exceeds the bound of 124700 ms (+250 ms"), std::string::npos)
      << v.first_violation;
}

TEST(RouteStaleness, AClientThatNeverFollowsFails) {
  HistoryBuilder b = silent_broker();
  b.h.routes.erase(b.h.routes.begin() + 3);  // producer-0's route without broker-b
  b.h.events.pop_back();                     // and broker-b never comes back
  const Verdict v = check_route_staleness(b.h, RouteStalenessBounds{"broker-b", 130'000, 30'000});
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.first_violation.find("producer-0 still routed to broker-b's master"), std::string::npos) << v.first_violation;
}

TEST(RouteStaleness, ABrokerBackBeforeItCouldBeDroppedIsNoEvidence) {
  HistoryBuilder b;
  registration(b, 0, "namesrv-0", "broker-b");
  route(b, 1'000, "namesrv-0", {{"broker-b", true}});
  b.event(10'000, EventKind::fault, "broker-b");
  b.event(20'000, EventKind::heal, "broker-b");
  const Verdict v = check_route_staleness(b.h, RouteStalenessBounds{"broker-b", 130'000, 30'000});
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.first_violation.find("not measurable"), std::string::npos) << v.first_violation;
}

TEST(RouteStaleness, AQueueCountChangeReachesEveryClientWithinAPoll) {
  HistoryBuilder b;
  route(b, 1'000, "namesrv-0", {{"broker-a", true}});
  route(b, 2'000, "producer-0", {{"broker-a", true}});
  route(b, 2'000, "consumer-0", {{"broker-a", true}});
  route(b, 100'000, "namesrv-0", {{"broker-a", true}}, 8);
  route(b, 112'000, "producer-0", {{"broker-a", true}}, 8);
  route(b, 140'000, "consumer-0", {{"broker-a", true}}, 8);
  Verdict v = check_route_staleness(b.h, RouteStalenessBounds{"broker-b", 130'000, 30'000});
  EXPECT_FALSE(v.passed) << "consumer-0 took 40 s";
  EXPECT_EQ(v.figures.at("client_queue_lag_ms"), 40'000);
  b.h.routes.back().at = testing::at_ms(125'000);
  v = check_route_staleness(b.h, RouteStalenessBounds{"broker-b", 130'000, 30'000});
  EXPECT_TRUE(v.passed) << v.to_line();
  EXPECT_EQ(v.figures.at("client_queue_lag_ms"), 25'000);
  b.h.routes.pop_back();  // consumer-0 never sees the change
  v = check_route_staleness(b.h, RouteStalenessBounds{"broker-b", 130'000, 30'000});
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.first_violation.find("consumer-0's route of Orders never showed broker-a with 8 write queues"), std::string::npos)
      << v.first_violation;
}

// namesrv-1 is down when broker-a gets 8 queues at 20 s; namesrv-0 serves the change and the
// clients follow. namesrv-1 restarts and learns the 8 queues at 60 s: the clients have them already.
TEST(RouteStaleness, ARestartedNameServerLearningAnOldChangeIsNothingToFollow) {
  HistoryBuilder b;
  route(b, 1'000, "namesrv-0", {{"broker-a", true}});
  route(b, 1'000, "namesrv-1", {{"broker-a", true}});
  route(b, 2'000, "producer-0", {{"broker-a", true}});
  route(b, 20'000, "namesrv-0", {{"broker-a", true}}, 8);
  route(b, 31'000, "producer-0", {{"broker-a", true}}, 8);
  route(b, 60'000, "namesrv-1", {{"broker-a", true}}, 8);
  Verdict v = check_route_staleness(b.h, RouteStalenessBounds{"broker-b", 130'000, 30'000});
  EXPECT_TRUE(v.passed) << v.to_line();
  EXPECT_EQ(v.figures.at("queue_changes"), 2);
  EXPECT_EQ(v.figures.at("client_queue_lag_ms"), 11'000) << "the first change only";
  route(b, 70'000, "namesrv-1", {{"broker-a", true}}, 16);  // a change nobody follows fails still
  v = check_route_staleness(b.h, RouteStalenessBounds{"broker-b", 130'000, 30'000});
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.first_violation.find("producer-0's route of Orders never showed broker-a with 16 write queues"), std::string::npos)
      << v.first_violation;
}

TEST(RouteStaleness, NothingToJudgeFails) {
  const Verdict v = check_route_staleness(History{}, RouteStalenessBounds{"broker-b", 130'000, 30'000});
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.first_violation.find("nothing to judge"), std::string::npos) << v.first_violation;
}

}  // namespace
}  // namespace ferry::sim::check
