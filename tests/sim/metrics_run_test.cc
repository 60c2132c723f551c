// The nodes' metrics in virtual time (sim/scenario/metrics_observer.h): a scenario run samples the
// brokers' registries every second into the History; a consumer paused behind a producer makes
// lag, which the metric_bound check sees come back after the consumer returns (and fails when the
// bound is too tight); the report plots the lanes; the samples survive a history file; and the
// observer changes nothing in the run.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>

#include "sim/check/checkers.h"
#include "sim/check/metric_bound.h"
#include "sim/cluster/cluster.h"
#include "sim/cluster/workload.h"
#include "sim/history/history_codec.h"
#include "sim/report/lanes.h"
#include "sim/report/report_model.h"
#include "sim/scenario/fault_schedule.h"
#include "sim/scenario/metrics_observer.h"
#include "sim/scenario/runner.h"
#include "sim/scenario/scenario_parser.h"
#include "sim/scenario/watch.h"
#include "tests/support/sim_test_util.h"

namespace ferry::sim::scenario {
namespace {

using namespace std::chrono_literals;

// One broker, a producer at 50 messages a second for 20 s, a consumer paused from 4 s to 10 s (its
// lag grows), and a metric_bound check on the lag with the given bound.
std::string lag_scenario(const std::string& within) {
  return fmt::format(R"(
story = "a consumer paused behind a producer: its lag grows, then comes back"
[[brokers]]
name = "broker-a"
[[topics]]
name = "T"
queues = 2
[[producers]]
node = "producer-0"
rate = 50
duration = "20s"
[[consumers]]
node = "consumer-0"
[[faults]]
at = "4s"
action = "pause"
target = "consumer-0"
duration = "6s"
[run]
length = "25s"
[liveness]
bound = "1m"
[checks.metric_bound]
metric = "rocketmq_consumer_lag_messages"
max = 60
within = "{}"
)",
                     within);
}

Scenario parse_ok(const std::string& text) {
  auto s = parse_scenario(text, "t.toml");
  EXPECT_TRUE(s.ok()) << s.error().to_string();
  return s.ok() ? *s : Scenario{};
}

const check::Verdict* verdict(const RunOutcome& run, const std::string& name) {
  for (const check::Verdict& v : run.verdicts) {
    if (v.name == name) return &v;
  }
  return nullptr;
}

TEST(MetricsRun, LagGrowsWhileTheConsumerIsPausedAndTheBoundSeesItComeBack) {
  const RunOutcome run = run_scenario(parse_ok(lag_scenario("15s")), 5);
  ASSERT_FALSE(run.error) << run.error->to_string();
  const sim::History& h = *run.history;
  ASSERT_FALSE(h.metric_samples.empty());
  double lag_peak = 0, produced = 0;
  for (const sim::MetricSample& m : h.metric_samples) {
    EXPECT_NE(std::find(sim::kSampledMetrics.begin(), sim::kSampledMetrics.end(), m.metric), sim::kSampledMetrics.end())
        << m.metric;
    if (m.node == "broker-a" && m.metric == "rocketmq_consumer_lag_messages") lag_peak = std::max(lag_peak, m.value);
    if (m.node == "broker-a" && m.metric == "rocketmq_messages_in_total") produced = std::max(produced, m.value);
  }
  EXPECT_GT(lag_peak, 200) << "6 s paused at 50 messages a second";
  std::size_t acked = 0;
  for (const sim::SendRecord& s : h.sends) acked += s.outcome == sim::SendOutcome::ok ? 1 : 0;
  EXPECT_GE(produced, static_cast<double>(acked)) << "the broker counted every acknowledged send";
  const check::Verdict* v = verdict(run, "metric_bound");
  ASSERT_NE(v, nullptr);
  EXPECT_TRUE(v->passed) << v->to_line();
  EXPECT_GE(v->figures.at("peak"), 200);
  EXPECT_GE(v->figures.at("recoveries"), 1) << "the heal (resume) of the pause";
  EXPECT_TRUE(run.passed()) << run.first_failure();

  // The report draws the lanes: the produce rate and broker-a's lag.
  const report::ReportModel m = report::model_from_run(parse_ok(lag_scenario("15s")), run, "t.toml");
  bool lag_lane = false, produced_lane = false;
  for (const report::Lane& l : m.timeline.lanes()) {
    if (l.kind != report::kLaneMetric) continue;
    lag_lane |= l.name == "lag broker-a" && !l.columns.empty();
    produced_lane |= l.name == "produced" && !l.columns.empty();
  }
  EXPECT_TRUE(lag_lane);
  EXPECT_TRUE(produced_lane);

  // A history file keeps the samples.
  auto decoded = decode_history(encode_history(h, HistoryEncoding::binary), HistoryEncoding::binary);
  ASSERT_TRUE(decoded.ok()) << decoded.error().to_string();
  ASSERT_EQ(decoded->metric_samples.size(), h.metric_samples.size());
  EXPECT_EQ(decoded->metric_samples.back().value, h.metric_samples.back().value);
  EXPECT_EQ(decoded->metric_samples.back().node, h.metric_samples.back().node);
}

TEST(MetricsRun, ABoundTooTightFailsNamingTheMetricAndTheHeal) {
  const RunOutcome run = run_scenario(parse_ok(lag_scenario("100ms")), 5);
  ASSERT_FALSE(run.error) << run.error->to_string();
  const check::Verdict* v = verdict(run, "metric_bound");
  ASSERT_NE(v, nullptr);
  EXPECT_FALSE(v->passed) << v->to_line();
  EXPECT_NE(v->first_violation.find("rocketmq_consumer_lag_messages"), std::string::npos) << v->first_violation;
  EXPECT_NE(v->first_violation.find("consumer-0"), std::string::npos) << v->first_violation;
}

TEST(MetricsRun, AMetricNeverSampledIsAViolationNotAPass) {
  sim::History h;
  const check::Verdict v = check::check_metric_bound(h, check::MetricBound{"ferry_ha_slave_lag_bytes", "", 0, 1000, true});
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.first_violation.find("no sample"), std::string::npos) << v.first_violation;
}

// The observer only reads: the same seed gives the same final hash with it and without it.
std::uint64_t final_hash(const Scenario& s, std::uint64_t seed, bool observe) {
  cluster::Cluster c(testing::test_options(seed), s.cluster);
  EXPECT_TRUE(c.boot().ok()) << c.describe();
  auto history = std::make_shared<sim::History>();
  c.add_client(s.producers[0].node, cluster::producer_app(s.producers[0].spec, history));
  c.add_client(s.consumers[0].node, consumer_factory(s.consumers[0], history));
  Watch watch(250ms);
  MetricsObserver metrics(c, history);
  if (observe) watch.add([&metrics](MonoTime now) { metrics.look(now); });
  watch.advance(c, c.world().now() + 15s);
  if (observe) {
    EXPECT_FALSE(history->metric_samples.empty());
  }
  return c.world().final_hash();
}

TEST(MetricsRun, TheObserverDoesNotChangeTheRun) {
  const Scenario s = parse_ok(lag_scenario("15s"));
  for (std::uint64_t seed : {3u, 4u}) {
    EXPECT_EQ(final_hash(s, seed, true), final_hash(s, seed, false)) << "seed " << seed;
  }
}

}  // namespace
}  // namespace ferry::sim::scenario
