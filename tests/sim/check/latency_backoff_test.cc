#include "sim/check/latency_backoff.h"

#include <gtest/gtest.h>

#include "tests/sim/check/named_check_builder.h"

namespace ferry::sim::check {
namespace {

using testing::HistoryBuilder;
using testing::queue;
using testing::timed_send;

// One send every `step_ms` from `from_ms` to `to_ms` by `producer`, alternating broker-a and
// broker-b unless `avoid_b_until` says broker-b is avoided; broker-b's sends take `b_latency_ms`.
struct Sender {
  HistoryBuilder& b;
  std::string producer;
  std::uint64_t seq = 0;
  void send(std::int64_t at_ms, const std::string& broker, std::int64_t latency_ms, SendOutcome outcome = SendOutcome::ok) {
    timed_send(b, producer, seq++, queue(0, broker, "Quotes"), at_ms, at_ms + latency_ms, outcome);
  }
};

TEST(LatencyBackoff, TheExpectedIsolationFollowsRocketMQsTable) {
  EXPECT_EQ(expected_isolation_ms(549), 0);
  EXPECT_EQ(expected_isolation_ms(550), 30'000);
  EXPECT_EQ(expected_isolation_ms(1'100), 60'000);
  EXPECT_EQ(expected_isolation_ms(2'000), 120'000);
  EXPECT_EQ(expected_isolation_ms(3'000), 180'000);
  EXPECT_EQ(expected_isolation_ms(30'000), 600'000);
}

// producer-0 (strategy on) sees a 600 ms send to broker-b at 10 s, avoids it 30 s, tries again.
HistoryBuilder avoiding(std::int64_t planted_b_send_ms = -1) {
  HistoryBuilder b;
  b.h.latency_fault_producers.insert("producer-0");
  Sender s{b, "producer-0"};
  for (std::int64_t t = 0; t < 10'000; t += 500) s.send(t, t % 1000 == 0 ? "broker-a" : "broker-b", 2);
  s.send(10'000, "broker-b", 600);  // -> avoided until 40.6 s
  for (std::int64_t t = 11'000; t < 40'600; t += 500) s.send(t, t == planted_b_send_ms ? "broker-b" : "broker-a", 2);
  s.send(41'000, "broker-b", 2);  // tried again
  for (std::int64_t t = 41'500; t < 45'000; t += 500) s.send(t, t % 1000 == 0 ? "broker-a" : "broker-b", 2);
  return b;
}

TEST(LatencyBackoff, AProducerThatAvoidsTheWindowAndTriesAgainPasses) {
  const Verdict v = check_latency_backoff(avoiding().h, LatencyBackoffBounds{"broker-b", 1'000});
  EXPECT_TRUE(v.passed) << v.to_line();
  EXPECT_EQ(v.figures.at("producer-0.windows"), 1);
  EXPECT_EQ(v.figures.at("producer-0.window_1_ms"), 30'000);
  EXPECT_EQ(v.figures.at("producer-0.to_group_in_windows"), 0);
  EXPECT_EQ(v.figures.at("producer-0.retry_after_window_ms"), 400);
}

TEST(LatencyBackoff, ASendIntoTheWindowFails) {
  const Verdict v = check_latency_backoff(avoiding(25'000).h, LatencyBackoffBounds{"broker-b", 1'000});
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.first_violation.find("producer-0 sent #"), std::string::npos) << v.first_violation;
  EXPECT_NE(v.first_violation.find("inside the 30000 ms avoidance"), std::string::npos) << v.first_violation;
}

TEST(LatencyBackoff, ATimedOutSendIsolatesForTenMinutesAndItsDestinationComesFromTheConsumption) {
  HistoryBuilder b;
  b.h.latency_fault_producers.insert("producer-0");
  Sender s{b, "producer-0"};
  s.send(1'000, "broker-b", 3'000, SendOutcome::unknown);
  b.h.sends.back().queue = MessageQueue{};  // a timeout says nothing about where it went
  b.consume("c", "g", "producer-0", 0, queue(0, "broker-b", "Quotes"), 0, 1'200);
  for (std::int64_t t = 5'000; t < 100'000; t += 1'000) s.send(t, t == 50'000 ? "broker-b" : "broker-a", 2);
  const Verdict v = check_latency_backoff(b.h, LatencyBackoffBounds{"broker-b", 1'000});
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.first_violation.find("inside the 600000 ms avoidance"), std::string::npos) << v.first_violation;
}

TEST(LatencyBackoff, AProducerThatNeverTriesAgainFails) {
  HistoryBuilder b = avoiding();
  for (SendRecord& r : b.h.sends) {
    if (r.sent_at >= testing::at_ms(41'000)) r.queue = queue(0, "broker-a", "Quotes");
  }
  for (std::int64_t t = 45'000; t < 60'000; t += 500) timed_send(b, "producer-0", 1'000 + t, queue(0, "broker-a", "Quotes"), t, t + 2);
  const Verdict v = check_latency_backoff(b.h, LatencyBackoffBounds{"broker-b", 1'000});
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.first_violation.find("never tried broker-b again"), std::string::npos) << v.first_violation;
}

TEST(LatencyBackoff, WithoutTheStrategyRoundRobinMustGoOn) {
  HistoryBuilder b = avoiding();
  b.h.latency_fault_producers.clear();  // the same sends from a producer with the strategy off
  const Verdict v = check_latency_backoff(b.h, LatencyBackoffBounds{"broker-b", 1'000});
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.first_violation.find("round robin should go on"), std::string::npos) << v.first_violation;
}

TEST(LatencyBackoff, NoSlowSendIsNothingToJudge) {
  HistoryBuilder b;
  Sender s{b, "producer-0"};
  for (std::int64_t t = 0; t < 10'000; t += 500) s.send(t, t % 1000 == 0 ? "broker-a" : "broker-b", 2);
  EXPECT_FALSE(check_latency_backoff(b.h, LatencyBackoffBounds{"broker-b", 1'000}).passed);
}

}  // namespace
}  // namespace ferry::sim::check
