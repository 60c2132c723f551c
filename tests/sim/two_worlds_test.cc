// Two simulated worlds in one process, in two threads at once: each World owns where its nodes
// log (runtime/log.h, sim/world.h) and nothing else of the process is shared, so each run ends
// in the same trace hash, the same verdicts and the same log bytes as when the two run one after
// the other. The scenario has a broker whose disk fills (error lines, captured), a consumer group,
// a partition and a kill: enough logging and scheduling for any shared state to show.
#include <gtest/gtest.h>
#include <spdlog/sinks/ostream_sink.h>

#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "runtime/log.h"
#include "sim/scenario/runner.h"
#include "sim/scenario/scenario_parser.h"

namespace ferry::sim::scenario {
namespace {

constexpr const char* kBusy = R"(name = "two-worlds"
[[brokers]]
name = "broker-a"
[[brokers]]
name = "broker-b"
[[topics]]
name = "T"
queues = 4
[[producers]]
node = "producer-0"
rate = 40
duration = "25s"
[[consumers]]
node = "consumer-0"
group = "readers"
consume_from = "CONSUME_FROM_FIRST_OFFSET"
[[consumers]]
node = "consumer-1"
group = "readers"
consume_from = "CONSUME_FROM_FIRST_OFFSET"
[[faults]]
at = "3s"
action = "fill_disk"
target = "broker-a"
duration = "3s"
[[faults]]
at = "3s"
action = "partition"
target = "consumer-1"
peers = ["broker-b"]
duration = "2s"
[[faults]]
at = "5s"
action = "kill"
target = "consumer-0"
duration = "1s"
[run]
length = "30s"
[liveness]
bound = "1m"
require = ["brokers_running", "producers_done"]
[checks]
expected_errors = ["no_space"]
)";

struct Seed {
  std::uint64_t trace_hash = 0;
  std::string verdicts;
  std::string log;
};

// One seed of the scenario, its nodes printing at debug into a stream of its own.
Seed run_once(const Scenario& s, std::uint64_t seed) {
  std::ostringstream out;
  const LogSettings printing{{std::make_shared<spdlog::sinks::ostream_sink_st>(out)}, spdlog::level::debug};
  RunOutcome o = run_scenario(s, seed, printing);
  Seed r;
  r.trace_hash = o.trace_hash;
  for (const check::Verdict& v : o.verdicts) r.verdicts += v.to_line() + "\n";
  if (o.error) r.verdicts += "error: " + o.error->to_string();
  o.cluster.reset();  // the nodes' last lines (their teardown) are part of the log
  r.log = out.str();
  return r;
}

TEST(TwoWorlds, InTwoThreadsTheyRunAsTheyDoOneAfterTheOther) {
  auto s = parse_scenario(kBusy, "two-worlds.toml");
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  const std::vector<std::uint64_t> seeds = {11, 12, 13, 14};
  std::vector<Seed> alone;
  for (std::uint64_t seed : seeds) alone.push_back(run_once(*s, seed));
  ASSERT_NE(alone[0].trace_hash, alone[1].trace_hash) << "two seeds, two different runs";
  ASSERT_GT(alone[0].log.size(), 10'000u) << "the runs log enough to tell";
  ASSERT_NE(alone[0].log.find("no_space"), std::string::npos) << "the error lines are in the printed log too\n"
                                                              << alone[0].verdicts;

  // The same seeds again, two threads at a time (odd and even positions), each world beside another.
  std::vector<Seed> beside(seeds.size());
  std::thread first([&] {
    for (std::size_t i = 0; i < seeds.size(); i += 2) beside[i] = run_once(*s, seeds[i]);
  });
  std::thread second([&] {
    for (std::size_t i = 1; i < seeds.size(); i += 2) beside[i] = run_once(*s, seeds[i]);
  });
  first.join();
  second.join();
  for (std::size_t i = 0; i < seeds.size(); ++i) {
    EXPECT_EQ(beside[i].trace_hash, alone[i].trace_hash) << "seed " << seeds[i];
    EXPECT_EQ(beside[i].verdicts, alone[i].verdicts) << "seed " << seeds[i];
    EXPECT_EQ(beside[i].log.size(), alone[i].log.size()) << "seed " << seeds[i];
    EXPECT_TRUE(beside[i].log == alone[i].log)
        << "seed " << seeds[i] << "'s log bytes differ when run beside another world";
  }
}

}  // namespace
}  // namespace ferry::sim::scenario
