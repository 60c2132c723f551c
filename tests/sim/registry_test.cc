// A checker and a fault action defined in this file alone, each registered with one line, and a
// scenario that uses both: the parser reads their keys and options by their specs, the runner
// applies and undoes the fault and records it, run_all_checks judges with the checker, the writer
// writes both back, and a saved History is judged again the same way. Nothing else in the tree
// knows them. (Its own test binary: the registries of other test binaries, checked against the
// docs, hold only the built-in ones.)
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "runtime/log.h"
#include "sim/check/checkers.h"
#include "sim/check/registry.h"
#include "sim/history/history_codec.h"
#include "sim/scenario/fault_registry.h"
#include "sim/scenario/runner.h"
#include "sim/scenario/scenario_parser.h"
#include "sim/scenario/scenario_writer.h"

namespace ferry::sim {
namespace {

using namespace std::chrono_literals;

// ---- the fault: "stutter" adds `delay` to every packet from the targets to the peers for its
// duration (a flaky switch port), and says so in the History as a fault and its end as a heal.
scenario::FaultActionSpec stutter() {
  scenario::FaultActionSpec a;
  a.name = "stutter";
  a.story = "a flaky port: `delay` more on every packet from the targets to the peers for `duration`";
  a.peers = true;
  a.duration = true;
  a.keys = {{.name = "delay",
             .default_value = Duration{},
             .story = "the extra delay (delay = \"200ms\")",
             .min_duration = 1ms,
             .max_duration = 10s,
             .required = true}};
  a.apply = [](scenario::FaultContext& ctx, const scenario::FaultEntry& f) {
    const Duration delay = f.param<Duration>("delay");
    ++ctx.state<int>("stutter");
    return ctx.each_link(f, [&](NodeId x, NodeId y) { ctx.cluster().clog(x, y, delay); });
  };
  a.undo = [](scenario::FaultContext& ctx, const scenario::FaultEntry& f) {
    return ctx.each_link(f, [&](NodeId x, NodeId y) { ctx.cluster().clog(x, y, Duration{}); });
  };
  a.lasts = [](const scenario::FaultEntry&) { return true; };
  a.real_refusal = "a test's fault, for the simulator only";
  return a;
}
const scenario::RegisterFaultAction kStutter{stutter()};

// ---- the checker: "acked-during-stutter" counts the acknowledged sends that ended while a
// stutter lasted (between its fault event and its heal) and fails below `acked_min`.
check::Verdict judge_acked_during_stutter(const History& h, const OptionValues& options) {
  check::Verdict v;
  v.name = "acked-during-stutter";
  std::optional<MonoTime> from, to;
  for (const Event& e : h.events) {
    if (e.detail.find("stutter") == std::string::npos) continue;
    if (e.kind == EventKind::fault && !from) from = e.at;
    if (e.kind == EventKind::heal && !to) to = e.at;
  }
  std::int64_t acked = 0;
  for (const SendRecord& s : h.sends) {
    if (s.outcome == SendOutcome::ok && from && to && s.done_at >= *from && s.done_at <= *to) ++acked;
  }
  const std::int64_t min = option<std::int64_t>(options, "acked_min");
  v.figures["acked"] = acked;
  v.figures["stutters"] = from ? 1 : 0;
  if (!from || !to) v.violation("no stutter and its end in the history");
  if (acked < min) v.violation(fmt::format("{} sends acknowledged during the stutter, fewer than {}", acked, min));
  v.passed = v.violations == 0;
  return v;
}
const check::RegisterChecker kAckedDuringStutter{
    check::CheckerSpec{"acked-during-stutter",
                       "sends go on being acknowledged while a stutter lasts",
                       false,
                       {{.name = "acked_min",
                         .default_value = std::int64_t{1},
                         .story = "acknowledged sends it needs",
                         .min = 0,
                         .max = 1'000'000}},
                       check::Record::sends | check::Record::events,
                       &judge_acked_during_stutter}};

constexpr const char* kScenario = R"(name = "registered"
[[brokers]]
name = "broker-a"
[[topics]]
name = "T"
queues = 4
[[producers]]
node = "producer-0"
rate = 20
duration = "10s"
[[consumers]]
node = "consumer-0"
group = "readers"
consume_from = "CONSUME_FROM_FIRST_OFFSET"
[[faults]]
at = "2s"
action = "stutter"
target = "producer-0"
peers = ["broker-a"]
duration = "3s"
delay = "150ms"
[run]
length = "12s"
[liveness]
bound = "1m"
[checks.acked-during-stutter]
acked_min = 10
)";

TEST(Registries, ATestsCheckerAndFaultComeAfterTheBuiltInOnes) {
  const auto& checkers = check::checkers().all();
  ASSERT_FALSE(checkers.empty());
  EXPECT_EQ(checkers.back().name, "acked-during-stutter");
  EXPECT_EQ(checkers[checkers.size() - 2].name, "error-logs")
      << "the built-in ones keep their order, error-logs last of them";
  const auto& faults = scenario::fault_actions().all();
  EXPECT_EQ(faults.back().name, "stutter");
  EXPECT_EQ(faults.front().name, "kill");
  const auto keys = scenario::fault_action_keys();
  EXPECT_NE(std::find(keys.begin(), keys.end(), "delay"), keys.end());
}

TEST(Registries, AScenarioUsesTheRegisteredFaultAndChecker) {
  if (std::getenv("FERRY_LOG") == nullptr) set_default_log_level(spdlog::level::warn);
  auto s = scenario::parse_scenario(kScenario, "registered.toml");
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  ASSERT_EQ(s->faults.size(), 1u);
  EXPECT_EQ(s->faults[0].action, "stutter");
  EXPECT_EQ(s->faults[0].param<Duration>("delay"), 150ms);
  ASSERT_EQ(s->checks.named.size(), 1u);
  EXPECT_EQ(scenario::check_option<std::int64_t>(s->checks.named[0], "acked_min"), 10);

  const scenario::RunOutcome run = scenario::run_scenario(*s, 3);
  ASSERT_FALSE(run.error) << run.error->to_string();
  EXPECT_TRUE(run.passed()) << run.first_failure();
  const check::Verdict* v = nullptr;
  for (const check::Verdict& x : run.verdicts) {
    if (x.name == "acked-during-stutter") v = &x;
  }
  ASSERT_NE(v, nullptr) << "the named check ran";
  EXPECT_TRUE(v->passed) << v->to_line();
  EXPECT_EQ(v->figures.at("stutters"), 1);
  EXPECT_GE(v->figures.at("acked"), 10) << v->to_line();
  EXPECT_LT(v->figures.at("acked"), 60) << "150 ms more a packet slows the producer below its 20 a second: "
                                        << v->to_line();
  EXPECT_EQ(run.verdicts.back().name, "acked-during-stutter") << "after error-logs: registered checkers come last";

  // The same run asking for more than the stutter lets through fails, on this check alone.
  s->checks.named[0].options["acked_min"] = std::int64_t{1000};
  const scenario::RunOutcome strict = scenario::run_scenario(*s, 3);
  EXPECT_FALSE(strict.passed());
  EXPECT_NE(strict.first_failure().find("acked-during-stutter"), std::string::npos) << strict.first_failure();
  EXPECT_EQ(strict.trace_hash, run.trace_hash) << "a checker's options never change the run";

  // The fault's start and end are in the History, as a fault and a heal of each node it named.
  int faults = 0, heals = 0;
  for (const Event& e : run.history->events) {
    if (e.detail.find("stutter producer-0 / broker-a") == std::string::npos) continue;
    faults += e.kind == EventKind::fault;
    heals += e.kind == EventKind::heal;
  }
  EXPECT_EQ(faults, 2) << "the target and the peer";
  EXPECT_EQ(heals, 2);

  // A saved History is judged again the same way (its settings name the check and its options).
  auto saved = decode_history(encode_history(*run.history, HistoryEncoding::json), HistoryEncoding::json);
  ASSERT_TRUE(saved.ok()) << saved.error().to_string();
  const std::vector<check::Verdict> again = check::run_all_checks(*saved);
  ASSERT_EQ(again.size(), run.verdicts.size());
  EXPECT_EQ(again.back().to_line(), v->to_line());
}

TEST(Registries, TheWriterAndTheParserKnowTheRegisteredKeys) {
  auto s = scenario::parse_scenario(kScenario, "registered.toml");
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  const std::string text = scenario::write_scenario(*s);
  EXPECT_NE(text.find("action = \"stutter\""), std::string::npos) << text;
  EXPECT_NE(text.find("delay = \"150ms\""), std::string::npos) << text;
  EXPECT_NE(text.find("[checks.acked-during-stutter]\nacked_min = 10"), std::string::npos) << text;
  auto back = scenario::parse_scenario(text, "written.toml");
  ASSERT_TRUE(back.ok()) << back.error().to_string() << "\n" << text;
  EXPECT_EQ(scenario::write_scenario(*back), text);

  // Its key on another action is refused by name; a missing required key is named too.
  std::string wrong = kScenario;
  wrong.replace(wrong.find("action = \"stutter\""), 18, "action = \"kill\"");
  auto refused = scenario::parse_scenario(wrong, "t.toml");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().detail.find("faults[0].delay: not used by action kill"), std::string::npos)
      << refused.error().detail;
  std::string missing = kScenario;
  missing.erase(missing.find("delay = \"150ms\"\n"), 16);
  auto no_delay = scenario::parse_scenario(missing, "t.toml");
  ASSERT_FALSE(no_delay.ok());
  EXPECT_NE(no_delay.error().detail.find("faults[0].delay: stutter needs the extra delay"), std::string::npos)
      << no_delay.error().detail;
  std::string bad_option = kScenario;
  bad_option.replace(bad_option.find("acked_min = 10"), 14, "acked_min = -3");
  auto out_of_range = scenario::parse_scenario(bad_option, "t.toml");
  ASSERT_FALSE(out_of_range.ok());
  EXPECT_NE(out_of_range.error().detail.find("checks.acked-during-stutter.acked_min: -3 is out of range"),
            std::string::npos)
      << out_of_range.error().detail;
}

}  // namespace
}  // namespace ferry::sim
