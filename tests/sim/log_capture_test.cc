// A scenario run's log capture (sim/scenario/log_capture.h, recent_logs.h): the ring of recent
// lines keeps the newest and finds the lines around a time; a capture puts the process's log
// sinks and level back however it ends; and, end to end, a scenario whose fault makes a broker log
// an error fails on the error-logs check unless the file lists that error in expected_errors,
// whatever the printed log level.
#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <string>

#include "runtime/log.h"
#include "sim/scenario/log_capture.h"
#include "sim/scenario/recent_logs.h"
#include "sim/scenario/runner.h"
#include "sim/scenario/scenario_parser.h"

namespace ferry::sim::scenario {
namespace {

using namespace std::chrono_literals;

MonoTime at_ms(std::int64_t ms) { return MonoTime(std::chrono::milliseconds(ms)); }

TEST(RecentLogs, KeepsTheNewestLinesInOrderAndCountsTheRest) {
  RecentLogs ring(3);
  for (int i = 0; i < 5; ++i) ring.push(at_ms(i * 10), "broker-a", "info", "line " + std::to_string(i));
  ASSERT_EQ(ring.size(), 3u);
  EXPECT_EQ(ring.dropped(), 2u);
  EXPECT_EQ(ring.at(0).text, "line 2");
  EXPECT_EQ(ring.at(2).text, "line 4");
  EXPECT_EQ(ring.at(2).at, at_ms(40));
}

TEST(RecentLogs, AroundGivesTheWindowsLinesNearestFirstWithinItsBound) {
  RecentLogs ring(100);
  for (int i = 0; i <= 20; ++i) ring.push(at_ms(i * 100), i % 2 == 0 ? "broker-a" : "namesrv-0", "info", std::to_string(i * 100));
  // [800, 1300] around 1000: lines 800..1300 (6 of them).
  RecentLogs::Window w = ring.around(at_ms(1'000), 200ms, 300ms, 60);
  ASSERT_EQ(w.lines.size(), 6u);
  EXPECT_EQ(w.lines.front().text, "800");
  EXPECT_EQ(w.lines.back().text, "1300");
  EXPECT_EQ(w.left_out, 0u);
  EXPECT_FALSE(w.may_miss_earlier);
  // At most 3: the nearest to 1000 (1000, then 900 before 1100 on the tie), in time order.
  w = ring.around(at_ms(1'000), 200ms, 300ms, 3);
  ASSERT_EQ(w.lines.size(), 3u);
  EXPECT_EQ(w.lines[0].text, "900");
  EXPECT_EQ(w.lines[1].text, "1000");
  EXPECT_EQ(w.lines[2].text, "1100");
  EXPECT_EQ(w.left_out, 3u);
  // Nothing in the window.
  EXPECT_TRUE(ring.around(at_ms(50'000), 1s, 1s, 60).lines.empty());
}

TEST(RecentLogs, AWindowOlderThanTheRingSaysItMayMissLines) {
  RecentLogs ring(4);
  for (int i = 0; i < 10; ++i) ring.push(at_ms(i * 1'000), "broker-a", "info", std::to_string(i));
  const RecentLogs::Window w = ring.around(at_ms(6'500), 2s, 1s, 60);
  EXPECT_TRUE(w.may_miss_earlier);
  ASSERT_EQ(w.lines.size(), 2u);  // 6 and 7 are kept; 5 is gone
  EXPECT_EQ(w.lines[0].text, "6");
}

TEST(LogCapture, LeavesTheProcessAloneAndCapturesInfoWhateverIsPrinted) {
  const auto sinks = default_log_sinks();
  const auto level = default_log_level();
  set_default_log_level(spdlog::level::off);
  try {
    LogCapture capture;
    const LogSettings run = capture.settings();
    EXPECT_EQ(run.level, spdlog::level::info) << "the capture sees info lines whatever is printed";
    EXPECT_NE(run.sinks, sinks);
    ASSERT_EQ(run.sinks.size(), 2u) << "what is printed (filtered at its level) and the capture";
    EXPECT_EQ(run.sinks[0]->level(), spdlog::level::off) << "printed: what would be printed without the capture";
    EXPECT_EQ(default_log_level(), spdlog::level::off) << "the process's defaults are not touched";
    EXPECT_EQ(default_log_sinks(), sinks);
    throw std::runtime_error("a run that ends in an exception");
  } catch (const std::runtime_error&) {
  }
  EXPECT_EQ(default_log_level(), spdlog::level::off);
  EXPECT_EQ(default_log_sinks(), sinks);
  set_default_log_level(level);
}

TEST(LogCapture, ErrorLinesBeforeAttachGoToTheHistoryAtAttachAndNothingAfterFinish) {
  auto history = std::make_shared<sim::History>();
  const auto level = default_log_level();
  set_default_log_level(spdlog::level::off);  // printed: nothing; captured: still everything at info and above
  {
    LogCapture capture;
    auto logger = make_node_logger("broker-z", nullptr, capture.settings());
    logger->error("before the world: {}", 1);
    logger->info("an info line");
    logger->debug("a debug line, below the capture");
    World world(WorldOptions{});
    capture.attach(world, history);
    ASSERT_EQ(history->error_logs.size(), 1u);
    EXPECT_EQ(history->error_logs[0].node, "broker-z");
    EXPECT_EQ(history->error_logs[0].text, "before the world: 1");
    logger->critical("after");
    ASSERT_EQ(history->error_logs.size(), 2u);
    EXPECT_EQ(history->error_logs[1].level, "critical");
    const RecentLogs recent = capture.finish();
    EXPECT_EQ(recent.size(), 3u) << "error, info, critical (not debug)";
    logger->error("after the capture finished");
    EXPECT_EQ(history->error_logs.size(), 2u);
  }
  set_default_log_level(level);
}

// broker-a's disk fills at 3 s for 3 s: persisting its consumer offsets fails, and it says so at
// error level ("offsets: persisting config/consumerOffset.json failed: no_space ...").
constexpr const char* kDiskFills = R"(name = "disk-fills"
[[brokers]]
name = "broker-a"
[[topics]]
name = "T"
queues = 2
[[producers]]
node = "producer-0"
rate = 50
duration = "10s"
[[consumers]]
node = "consumer-0"
group = "readers"
consume_from = "CONSUME_FROM_FIRST_OFFSET"
[[faults]]
at = "3s"
action = "fill_disk"
target = "broker-a"
duration = "3s"
[run]
length = "15s"
[liveness]
bound = "1m"
require = ["brokers_running", "producers_done"]
)";

const check::Verdict* verdict(const RunOutcome& run, const std::string& name) {
  for (const check::Verdict& v : run.verdicts) {
    if (v.name == name) return &v;
  }
  return nullptr;
}

TEST(LogCaptureRun, ABrokerErrorFailsTheRunUnlessTheFileExpectsIt) {
  const auto level = default_log_level();
  set_default_log_level(spdlog::level::off);  // the error is caught even when nothing is printed
  auto s = parse_scenario(kDiskFills, "disk-fills.toml");
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  const RunOutcome failed = run_scenario(*s, 1);
  ASSERT_FALSE(failed.error) << failed.error->to_string();
  const check::Verdict* v = verdict(failed, "error-logs");
  ASSERT_NE(v, nullptr);
  EXPECT_FALSE(v->passed) << v->to_line();
  EXPECT_FALSE(failed.passed());
  EXPECT_NE(v->first_violation.find("broker-a logged at"), std::string::npos) << v->first_violation;
  EXPECT_NE(v->first_violation.find("no_space"), std::string::npos) << v->first_violation;
  ASSERT_TRUE(v->first_violation_at.has_value());
  EXPECT_GE(*v->first_violation_at, failed.start + 3s) << "logged after the disk filled";
  // The ring holds the same line, at the same time, among the lines at info and above.
  const RecentLogs::Window w = failed.recent_logs.around(*v->first_violation_at, 0s, 0s, 60);
  ASSERT_FALSE(w.lines.empty());
  EXPECT_NE(w.lines.back().text.find("no_space"), std::string::npos) << w.lines.back().text;
  EXPECT_GT(failed.recent_logs.size(), failed.history->error_logs.size()) << "info lines too";
  EXPECT_EQ(default_log_level(), spdlog::level::off) << "the printed level is back after the run";

  s->checks.expected_errors = {"offsets: persisting config/consumerOffset.json failed: no_space"};
  const RunOutcome passed = run_scenario(*s, 1);
  const check::Verdict* ok = verdict(passed, "error-logs");
  ASSERT_NE(ok, nullptr);
  EXPECT_TRUE(ok->passed) << ok->to_line();
  EXPECT_GE(ok->figures.at("expected"), 1);
  EXPECT_TRUE(passed.passed()) << passed.first_failure();
  EXPECT_EQ(passed.trace_hash, failed.trace_hash) << "what is captured never changes the run";
  set_default_log_level(level);
}

}  // namespace
}  // namespace ferry::sim::scenario
