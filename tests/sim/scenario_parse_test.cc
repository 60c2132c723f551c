// Scenario files (sim/scenario), parsed and written: a full file parses into the expected struct;
// defaults make a short file enough; each kind of mistake is refused with file, line and key; the
// resolved form parses back to the same scenario; every file in scenarios/ parses. (Running them:
// scenario_run_test.cc.)
//
//   build/bin/sim_scenario_test
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>
#include <string>

#include "sim/check/checkers.h"
#include "sim/cluster/cluster.h"
#include "sim/cluster/workload.h"
#include "sim/disk/disk.h"
#include "sim/io/scenario_file.h"
#include "sim/net/network.h"
#include "sim/scenario/duration_text.h"
#include "sim/scenario/fault_registry.h"
#include "sim/scenario/fault_schedule.h"
#include "sim/scenario/runner.h"
#include "sim/scenario/scenario_parser.h"
#include "sim/scenario/scenario_writer.h"
#include "sim/swarm.h"
#include "tests/sim/scenario_test_util.h"
#include "tests/support/sim_test_util.h"
#include "tests/support/sim_trace_log.h"

namespace ferry::sim::scenario {
namespace {

using namespace std::chrono_literals;
using testing::parse_error;
using testing::parse_ok;

// ---- durations -----------------------------------------------------------------------------

TEST(DurationText, ParsesUnitsAndCompounds) {
  EXPECT_EQ(*parse_duration("30s"), 30s);
  EXPECT_EQ(*parse_duration("500ms"), 500ms);
  EXPECT_EQ(*parse_duration("2m"), 2min);
  EXPECT_EQ(*parse_duration("1h"), 1h);
  EXPECT_EQ(*parse_duration("1m30s"), 90s);
  EXPECT_EQ(*parse_duration("250us"), 250us);
  EXPECT_EQ(*parse_duration("0s"), 0s);
  EXPECT_EQ(*parse_duration("-3s", true), -3s);
  EXPECT_EQ(*parse_duration("+2m", true), 2min);
  EXPECT_EQ(format_duration(90s), "1m30s");
  EXPECT_EQ(format_duration(-1500ms), "-1s500ms");
}

TEST(DurationText, RefusesWhatIsNotADuration) {
  for (const char* bad : {"", "30", "s", "30 s", "1.5s", "30sec", "5d", "-3s", "9999999h"}) {
    auto d = parse_duration(bad);
    EXPECT_FALSE(d.ok()) << "\"" << bad << "\" parsed as " << (d.ok() ? to_ms(*d) : 0) << " ms";
  }
}

// ---- a full file ---------------------------------------------------------------------------

constexpr const char* kFull = R"(
name = "full"
story = "everything a scenario can say"

[cluster]
namesrvs = 2

[[brokers]]
name = "broker-a"
slaves = 1
flush = "SYNC_FLUSH"
slave_flush = "ASYNC_FLUSH"
role = "SYNC_MASTER"
disk_capacity_bytes = 1073741824
commit_log_file_size_bytes = 2097152
consume_queue_units_per_file = 2000
message_size_max_bytes = 131072
sync_flush_timeout = "3s"

[[brokers]]
name = "broker-b"

[[topics]]
name = "Orders"
queues = 8
ordered = true

[[topics]]
name = "Audit"

[[producers]]
node = "shop"
group = "shop-producers"
topic = "Orders"
rate = 50
duration = "20s"
body_bytes = 512
key_count = 3
send_latency_fault_enable = true
retry_times_when_send_failed = 4
retry_another_broker_when_not_store_ok = true
send_timeout = "5s"
start_at = "1s"

[[producers]]
topic = "Audit"
messages = 10
interval = "100ms"
keys = ["x", "y"]

[[consumers]]
node = "reader"
group = "order-readers"
topic = "Orders"
expression = "TagA || TagB"
model = "BROADCASTING"
kind = "push"
mode = "orderly"
consume_from = "CONSUME_FROM_FIRST_OFFSET"
start_at = "2s"
stop_at = "30s"

[[consumers]]
topic = "Audit"
kind = "lite_pull"

[[faults]]
at = "20s"
action = "kill"
target = "broker-a"

[[faults]]
at = "25s"
action = "partition"
target = ["reader", "shop"]
peers = "broker-b"
duration = "10s"

[[faults]]
at = "30s"
action = "clog"
target = "broker-b"
peers = ["reader"]
latency = "300ms"
duration = "5s"

[[faults]]
at = "40s"
action = "promote_slave"
target = "broker-a-s1"

[[faults]]
at = "41s"
action = "restart"
target = "namesrv-1"
kind = "power_off"
duration = "2s"
wipe = true

[[faults]]
at = "42s"
action = "skew_clock"
target = "consumer-1"
skew = "-5s"

[[faults]]
at = "43s"
action = "fill_disk"
target = "broker-b"
free_bytes = 4096
duration = "7s"

[[faults]]
at = "44s"
action = "slow_disk"
target = ["broker-a-s1", "broker-b"]
latency = "6s"
duration = "4s"

[[faults]]
at = "50s"
action = "heal_all"

[run]
length = "90s"
swarm = true

[liveness]
bound = "3m"
require = ["brokers_running", "producers_done"]

[checks]
lost = "report"
duplicates_max = 40
per_key_order = true
offsets_dense = true
expected_errors = ["promotion"]

[checks.failover]
group = "broker-a"
sends_resume_within = "45s"
)";

TEST(ScenarioParse, FullExample) {
  const Scenario s = parse_ok(kFull);
  EXPECT_EQ(s.name, "full");
  EXPECT_EQ(s.story, "everything a scenario can say");
  EXPECT_EQ(s.file, "t.toml");
  // cluster
  EXPECT_EQ(s.cluster.namesrvs, 2u);
  ASSERT_EQ(s.cluster.brokers.size(), 2u);
  const cluster::BrokerGroupSpec& a = s.cluster.brokers[0];
  EXPECT_EQ(a.name, "broker-a");
  EXPECT_EQ(a.slaves, 1u);
  EXPECT_EQ(a.flush, store::FlushMode::sync_flush);
  EXPECT_EQ(a.slave_flush, store::FlushMode::async_flush);
  EXPECT_EQ(a.role, broker::BrokerRole::sync_master);
  EXPECT_EQ(a.disk_capacity_bytes, 1ULL << 30);
  EXPECT_EQ(a.store.commit_log_file_size_bytes, 2 << 20);
  EXPECT_EQ(a.store.consume_queue_units_per_file, 2000);
  EXPECT_EQ(a.store.message_size_max_bytes, 131072);
  EXPECT_EQ(a.store.sync_flush_timeout, 3s);
  EXPECT_EQ(s.cluster.brokers[1].name, "broker-b");
  EXPECT_EQ(s.cluster.brokers[1].flush, store::FlushMode::async_flush);
  ASSERT_EQ(s.cluster.topics.size(), 2u);
  EXPECT_EQ(s.cluster.topics[0].name, "Orders");
  EXPECT_EQ(s.cluster.topics[0].queues, 8);
  EXPECT_TRUE(s.cluster.topics[0].ordered);
  EXPECT_EQ(s.cluster.topics[1].queues, 4);
  // workload
  ASSERT_EQ(s.producers.size(), 2u);
  const ProducerScenario& p = s.producers[0];
  EXPECT_EQ(p.node, "shop");
  EXPECT_EQ(p.start_at, 1s);
  EXPECT_EQ(p.spec.group, "shop-producers");
  EXPECT_EQ(p.spec.config.group, "shop-producers");
  EXPECT_EQ(p.spec.topic, "Orders");
  EXPECT_EQ(p.spec.interval, 20ms);
  EXPECT_EQ(p.spec.messages, 1000u);
  EXPECT_EQ(p.spec.body_bytes, 512u);
  EXPECT_EQ(p.spec.keys, (std::vector<std::string>{"key-0", "key-1", "key-2"}));
  EXPECT_TRUE(p.spec.ordered) << "an ordered topic's producer selects by key unless told otherwise";
  EXPECT_TRUE(p.spec.config.send_latency_fault_enable);
  EXPECT_EQ(p.spec.config.retry_times_when_send_failed, 4);
  EXPECT_TRUE(p.spec.config.retry_another_broker_when_not_store_ok);
  EXPECT_EQ(p.spec.config.send_timeout, 5s);
  EXPECT_EQ(s.producers[1].node, "producer-1");
  EXPECT_EQ(s.producers[1].spec.messages, 10u);
  EXPECT_EQ(s.producers[1].spec.interval, 100ms);
  EXPECT_EQ(s.producers[1].spec.keys, (std::vector<std::string>{"x", "y"}));
  EXPECT_FALSE(s.producers[1].spec.ordered);
  ASSERT_EQ(s.consumers.size(), 2u);
  const ConsumerScenario& c = s.consumers[0];
  EXPECT_EQ(c.node, "reader");
  EXPECT_EQ(c.spec.group, "order-readers");
  EXPECT_EQ(c.spec.config.group, "order-readers");
  EXPECT_EQ(c.spec.expression, "TagA || TagB");
  EXPECT_EQ(c.spec.config.message_model, remoting::body::MessageModel::BROADCASTING);
  EXPECT_EQ(c.spec.config.consume_from_where, remoting::body::ConsumeFromWhere::CONSUME_FROM_FIRST_OFFSET);
  EXPECT_EQ(c.kind, ConsumerKind::push);
  EXPECT_EQ(c.mode, ConsumeMode::orderly);
  EXPECT_EQ(c.start_at, 2s);
  EXPECT_EQ(c.stop_at, 30s);
  EXPECT_EQ(s.consumers[1].node, "consumer-1");
  EXPECT_EQ(s.consumers[1].kind, ConsumerKind::lite_pull);
  // faults
  ASSERT_EQ(s.faults.size(), 9u);
  EXPECT_EQ(s.faults[0].at, 20s);
  EXPECT_EQ(s.faults[0].action, "kill");
  EXPECT_EQ(s.faults[0].targets, std::vector<std::string>{"broker-a"});
  EXPECT_FALSE(s.faults[0].duration.has_value());
  EXPECT_EQ(s.faults[0].line, 67) << "the line of its [[faults]] header";
  EXPECT_EQ(s.faults[1].targets, (std::vector<std::string>{"reader", "shop"}));
  EXPECT_EQ(s.faults[1].peers, std::vector<std::string>{"broker-b"});
  EXPECT_EQ(s.faults[1].duration, 10s);
  EXPECT_EQ(s.faults[2].param<Duration>("latency"), 300ms);
  EXPECT_EQ(s.faults[3].action, "promote_slave");
  EXPECT_EQ(s.faults[3].param<std::string>("role"), "") << "unset: the group's configured master role";
  EXPECT_EQ(s.faults[4].param<std::string>("kind"), "power_off");
  EXPECT_TRUE(s.faults[4].param<bool>("wipe"));
  EXPECT_EQ(s.faults[4].duration, 2s);
  EXPECT_EQ(s.faults[5].param<Duration>("skew"), -5000ms);
  EXPECT_EQ(s.faults[6].param<std::int64_t>("free_bytes"), 4096);
  EXPECT_EQ(s.faults[7].action, "slow_disk");
  EXPECT_EQ(s.faults[7].targets, (std::vector<std::string>{"broker-a-s1", "broker-b"}));
  EXPECT_EQ(s.faults[7].param<Duration>("latency"), 6s);
  EXPECT_EQ(s.faults[7].duration, 4s);
  EXPECT_TRUE(s.faults[8].targets.empty());
  // run, liveness, checks
  EXPECT_EQ(s.run.length, 90s);
  EXPECT_TRUE(s.run.swarm);
  EXPECT_TRUE(s.liveness.enabled);
  EXPECT_EQ(s.liveness.bound, 3min);
  EXPECT_EQ(s.liveness.require, (std::vector<Requirement>{Requirement::brokers_running, Requirement::producers_done}));
  EXPECT_EQ(s.checks.lost, LostMode::report);
  EXPECT_EQ(s.checks.duplicates_max, 40);
  EXPECT_EQ(s.checks.per_key_order, true);
  EXPECT_TRUE(s.checks.offsets_dense);
  EXPECT_EQ(s.checks.expected_errors, std::vector<std::string>{"promotion"});
  EXPECT_FALSE(history_check_settings(s).lost_strict) << "lost = report";
  EXPECT_EQ(history_check_settings(s).duplicates_max, 40);
  EXPECT_TRUE(history_check_settings(s).offsets_dense);
  ASSERT_EQ(s.checks.named.size(), 1u);
  EXPECT_EQ(s.checks.named[0].name, "failover");
  EXPECT_EQ(check_option<std::string>(s.checks.named[0], "group"), "broker-a");
  EXPECT_EQ(check_option<Duration>(s.checks.named[0], "sends_resume_within"), 45s);
  EXPECT_EQ(check_option<Duration>(s.checks.named[0], "consume_from_slave_within"), 0s) << "a catalog default";
  // every node a fault may name
  EXPECT_EQ(s.node_names(), (std::vector<std::string>{"namesrv-0", "namesrv-1", "broker-a", "broker-b", "broker-a-s1",
                                                      "shop", "producer-1", "reader", "consumer-1"}));
}

TEST(ScenarioParse, TimelineExpandsDurationsIntoUndoSteps) {
  const Scenario s = parse_ok(kFull);
  std::vector<std::string> steps;
  for (const FaultStep& step : fault_timeline(s)) steps.push_back(step.describe());
  EXPECT_EQ(steps, (std::vector<std::string>{
                       "20s kill broker-a",
                       "25s partition reader,shop / broker-b",
                       "30s clog broker-b / reader",
                       "35s end of partition reader,shop / broker-b",
                       "35s end of clog broker-b / reader",
                       "40s promote_slave broker-a-s1",
                       "41s restart namesrv-1",
                       "42s skew_clock consumer-1",
                       "43s fill_disk broker-b",
                       "44s slow_disk broker-a-s1,broker-b",
                       "48s end of slow_disk broker-a-s1,broker-b",
                       "50s end of fill_disk broker-b",
                       "50s heal_all",
                   }));
}

// ---- the resolved form ---------------------------------------------------------------------

// Written, parsed again and written again: the same text, the same scenario.
void expect_round_trip(const Scenario& s) {
  const std::string text = write_scenario(s);
  auto again = parse_scenario(text, s.file);
  ASSERT_TRUE(again.ok()) << again.error().detail << "\nin:\n" << text;
  EXPECT_EQ(write_scenario(*again), text);
  EXPECT_EQ(again->name, s.name);
  EXPECT_EQ(again->faults.size(), s.faults.size());
  EXPECT_EQ(again->node_names(), s.node_names());
  for (std::size_t i = 0; i < s.producers.size() && i < again->producers.size(); ++i) {
    EXPECT_EQ(again->producers[i].spec.interval, s.producers[i].spec.interval);
    EXPECT_EQ(again->producers[i].spec.messages, s.producers[i].spec.messages);
    EXPECT_EQ(again->producers[i].spec.keys, s.producers[i].spec.keys);
  }
}

TEST(ScenarioWrite, TheResolvedFormParsesToTheSameScenario) {
  expect_round_trip(parse_ok(kFull));
  expect_round_trip(parse_ok(""));
  // The settings that break a guarantee on purpose (docs/properties.md) are written too.
  const Scenario broken = parse_ok(
      "[[brokers]]\nrebalance_lock_max_live_time = \"1ms\"\n[[topics]]\nname = \"T\"\nordered = true\n"
      "[[producers]]\nselector = \"rotate\"\n[[consumers]]\nkind = \"lite_pull\"\nrewind_every = \"2s\"\nallocate = \"by_circle\"\n");
  expect_round_trip(broken);
  const std::string broken_text = write_scenario(broken);
  for (const char* line : {"rebalance_lock_max_live_time = \"1ms\"", "selector = \"rotate\"", "rewind_every = \"2s\"",
                           "allocate = \"by_circle\""}) {
    EXPECT_NE(broken_text.find(line), std::string::npos) << line << " in:\n" << broken_text;
  }
  const Scenario again = parse_ok(broken_text);
  EXPECT_EQ(again.cluster.brokers[0].config.rebalance_lock_max_live_time, std::chrono::milliseconds(1));
  EXPECT_EQ(again.producers[0].spec.selector, cluster::ProducerSpec::Selector::rotate);
  EXPECT_EQ(again.consumers[0].spec.rewind_every, std::optional<Duration>(std::chrono::seconds(2)));
  EXPECT_EQ(again.consumers[0].spec.config.allocate_strategy, client::AllocateStrategy::by_circle);
  expect_round_trip(parse_ok("story = \"quotes \\\" and \\\\ backslashes\"\n[[topics]]\nname = \"T\"\n[[producers]]\nrate = 3\n"
                             "keys = [\"a\", \"b\"]\n[liveness]\nrequire = []\n"));
  const std::string text = write_scenario(parse_ok(kFull));
  EXPECT_NE(text.find("interval = \"20ms\""), std::string::npos) << text;
  EXPECT_NE(text.find("skew = \"-5s\""), std::string::npos) << text;
  EXPECT_NE(text.find("action = \"slow_disk\"\ntarget = [\"broker-a-s1\", \"broker-b\"]\nduration = \"4s\"\nlatency = \"6s\""),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("consume_from_slave_within = \"0s\""), std::string::npos) << "defaults are written: " << text;
}

// ---- defaults ------------------------------------------------------------------------------

TEST(ScenarioParse, AnEmptyFileIsATinyValidRun) {
  const Scenario s = parse_ok("");
  EXPECT_EQ(s.name, "t");
  EXPECT_EQ(s.cluster.namesrvs, 1u);
  ASSERT_EQ(s.cluster.brokers.size(), 1u);
  EXPECT_EQ(s.cluster.brokers[0].name, "broker-a");
  EXPECT_EQ(s.cluster.brokers[0].flush, store::FlushMode::async_flush);
  EXPECT_EQ(s.cluster.brokers[0].role, broker::BrokerRole::async_master);
  EXPECT_EQ(s.cluster.brokers[0].store.commit_log_file_size_bytes, cluster::small_store().commit_log_file_size_bytes);
  EXPECT_TRUE(s.cluster.topics.empty());
  EXPECT_TRUE(s.producers.empty());
  EXPECT_TRUE(s.faults.empty());
  EXPECT_EQ(s.run.length, 60s);
  EXPECT_FALSE(s.run.swarm);
  EXPECT_TRUE(s.liveness.enabled);
  EXPECT_EQ(s.liveness.bound, 120s);
  EXPECT_EQ(s.liveness.require.size(), kRequirementMax + 1u);
  EXPECT_EQ(s.checks.lost, LostMode::strict);
  EXPECT_FALSE(s.checks.duplicates_max.has_value());
  EXPECT_FALSE(s.checks.per_key_order.has_value());
  EXPECT_TRUE(s.checks.corrupt);
  EXPECT_TRUE(s.checks.named.empty());
  const sim::CheckSettings h = history_check_settings(s);
  EXPECT_TRUE(h.lost_strict);
  EXPECT_EQ(h.duplicates_max, -1);
  EXPECT_FALSE(h.offsets_dense);
  const WorldOptions o = world_options(s, 5);
  EXPECT_EQ(o.seed, 5u);
  EXPECT_FALSE(o.buggify.enabled) << "no swarm: no buggify";
  Scenario swarm = s;
  swarm.run.swarm = true;
  for (std::uint64_t seed = 1; seed <= 8; ++seed) {
    EXPECT_EQ(world_options(swarm, seed).buggify.enabled, swarm_options(seed).buggify.enabled) << "seed " << seed;
  }
}

// [swarm] loosens a story's bounds only when the run draws swarm faults: named checks become
// figures only, its error lines and the simulated disk's failed-sync text are expected, and the
// liveness bound covers the producers' whole plan.
TEST(ScenarioParse, SwarmLoosensOnlyUnderSwarm) {
  const Scenario s = parse_ok(
      "[[topics]]\nname = \"T\"\n[[producers]]\nmessages = 600\ninterval = \"100ms\"\n"
      "[liveness]\nbound = \"3m\"\n[checks]\nexpected_errors = [\"story\"]\n[checks.failover]\ngroup = \"broker-a\"\n"
      "[swarm]\nexpected_errors = [\"swarm's own\"]\nfigures_only = [\"failover\"]\n");
  EXPECT_EQ(s.swarm.figures_only, std::vector<std::string>{"failover"});
  EXPECT_EQ(s.swarm.expected_errors, std::vector<std::string>{"swarm's own"});
  EXPECT_FALSE(s.swarm.liveness_bound.has_value());
  const sim::CheckSettings plain = history_check_settings(s);
  EXPECT_TRUE(plain.figures_only.empty()) << "not loosened without swarm";
  EXPECT_EQ(plain.expected_errors, std::vector<std::string>{"story"});
  EXPECT_EQ(liveness_bound(s), 3min);

  Scenario swarm = s;
  swarm.run.swarm = true;
  const sim::CheckSettings loose = history_check_settings(swarm);
  EXPECT_EQ(loose.figures_only, std::vector<std::string>{"failover"});
  EXPECT_EQ(loose.expected_errors, (std::vector<std::string>{"story", "swarm's own", DiskOptions::kEioOnSyncText}));
  EXPECT_EQ(liveness_bound(swarm), kSwarmLivenessBound + 60s) << "10 minutes past the producer's 60 s plan";
  const Scenario fixed = parse_ok("[swarm]\nliveness_bound = \"4m\"\n[run]\nswarm = true\n");
  EXPECT_EQ(liveness_bound(fixed), 4min);
  expect_round_trip(s);
  expect_round_trip(fixed);
}

TEST(ScenarioParse, AShortFileGetsTheRestFromDefaults) {
  const Scenario s = parse_ok(R"(
[[topics]]
name = "T"
[[producers]]
[[consumers]]
[[brokers]]
name = "b1"
[[brokers]]
)");
  ASSERT_EQ(s.cluster.brokers.size(), 2u);
  EXPECT_EQ(s.cluster.brokers[1].name, "broker-b") << "unnamed groups are lettered by position";
  ASSERT_EQ(s.producers.size(), 1u);
  EXPECT_EQ(s.producers[0].node, "producer-0");
  EXPECT_EQ(s.producers[0].spec.topic, "T") << "the only topic";
  EXPECT_EQ(s.producers[0].spec.group, "workload-producers");
  EXPECT_EQ(s.producers[0].spec.messages, 100u);
  EXPECT_EQ(s.producers[0].spec.interval, 20ms);
  EXPECT_FALSE(s.producers[0].spec.config.send_latency_fault_enable);
  EXPECT_EQ(s.producers[0].spec.config.retry_times_when_send_failed, 2);
  ASSERT_EQ(s.consumers.size(), 1u);
  EXPECT_EQ(s.consumers[0].node, "consumer-0");
  EXPECT_EQ(s.consumers[0].spec.group, "workload-consumers");
  EXPECT_EQ(s.consumers[0].spec.expression, "*");
  EXPECT_EQ(s.consumers[0].spec.config.message_model, remoting::body::MessageModel::CLUSTERING);
  EXPECT_EQ(s.consumers[0].spec.config.consume_from_where, remoting::body::ConsumeFromWhere::CONSUME_FROM_LAST_OFFSET);
  EXPECT_EQ(s.consumers[0].kind, ConsumerKind::push);
  EXPECT_EQ(s.consumers[0].mode, ConsumeMode::concurrently);
}

// ---- errors: file, line, key ---------------------------------------------------------------

struct BadCase {
  const char* what;
  const char* text;
  const char* expected;  // a substring of the error
};

class ScenarioErrors : public ::testing::TestWithParam<BadCase> {};

TEST_P(ScenarioErrors, NameFileLineAndKey) {
  const BadCase& c = GetParam();
  const std::string e = parse_error(c.text);
  EXPECT_NE(e.find(c.expected), std::string::npos) << c.what << ": expected \"" << c.expected << "\" in:\n" << e;
}

INSTANTIATE_TEST_SUITE_P(
    Each, ScenarioErrors,
    ::testing::Values(
        BadCase{"unknown top-level key", "name = \"x\"\ncolour = 1\n", "t.toml:2: colour: unknown key"},
        BadCase{"unknown key in a group", "[[brokers]]\nname = \"b\"\nslave = 1\n", "t.toml:3: brokers[0].slave: unknown key"},
        BadCase{"unknown key in a fault", "[[faults]]\nat = \"1s\"\naction = \"kill\"\ntarget = \"broker-a\"\nwhen = 3\n",
                "t.toml:5: faults[0].when: unknown key"},
        BadCase{"unknown check", "[checks.failovr]\ngroup = \"broker-a\"\n", "checks.failovr: unknown key"},
        BadCase{"a guarantee as figures only", "[swarm]\nfigures_only = [\"lost-acked\"]\n",
                "swarm.figures_only: \"lost-acked\" is a guarantee every run keeps"},
        BadCase{"figures only of a check the file lacks", "[swarm]\nfigures_only = [\"failover\"]\n",
                "swarm.figures_only: \"failover\" is not a check of this file (no [checks.failover])"},
        BadCase{"unknown key in [swarm]", "[swarm]\nbound = \"1m\"\n", "t.toml:2: swarm.bound: unknown key"},
        BadCase{"unknown check option", "[checks.failover]\ngroup = \"broker-a\"\nbound = \"1s\"\n",
                "t.toml:3: checks.failover.bound: unknown key"},
        BadCase{"wrong type", "[cluster]\nnamesrvs = \"two\"\n", "t.toml:2: cluster.namesrvs: expected an integer, found a string"},
        BadCase{"wrong type, boolean", "[run]\nswarm = \"yes\"\n", "t.toml:2: run.swarm: expected true or false"},
        BadCase{"a table expected", "run = 3\n", "t.toml:1: run: expected a table"},
        BadCase{"bad duration", "[run]\nlength = \"30 seconds\"\n", "t.toml:2: run.length: \"30 seconds\""},
        BadCase{"duration without a unit", "[run]\nlength = 30\n", "t.toml:2: run.length: a duration needs a unit"},
        BadCase{"duration out of range", "[liveness]\nbound = \"0s\"\n", "t.toml:2: liveness.bound: 0s is out of range"},
        BadCase{"bad enum", "[[brokers]]\nflush = \"SOMETIMES\"\n",
                "t.toml:2: brokers[0].flush: \"SOMETIMES\" is not one of \"ASYNC_FLUSH\", \"SYNC_FLUSH\""},
        BadCase{"a slave role for a master", "[[brokers]]\nrole = \"SLAVE\"\n", "t.toml:2: brokers[0].role: \"SLAVE\""},
        BadCase{"a selector for unordered sends", "[[topics]]\nname = \"T\"\n[[producers]]\nselector = \"rotate\"\n",
                "t.toml:4: producers[0].selector: a selector picks the queue of ordered sends only"},
        BadCase{"a push consumer that rewinds", "[[topics]]\nname = \"T\"\n[[consumers]]\nrewind_every = \"2s\"\n",
                "t.toml:4: consumers[0].rewind_every: only a lite pull consumer rewinds"},
        BadCase{"an unknown allocation", "[[topics]]\nname = \"T\"\n[[consumers]]\nallocate = \"random\"\n",
                "t.toml:4: consumers[0].allocate: \"random\" is not one of \"averagely\""},
        BadCase{"bad action", "[[faults]]\nat = \"1s\"\naction = \"explode\"\ntarget = \"broker-a\"\n",
                "t.toml:3: faults[0].action: \"explode\" is not one of kill, power_off"},
        BadCase{"unknown target", "[[faults]]\nat = \"1s\"\naction = \"kill\"\ntarget = \"broker-z\"\n",
                "t.toml:4: faults[0].target: \"broker-z\" is not a node of this scenario"},
        BadCase{"the master of no group", "[[faults]]\nat = \"1s\"\naction = \"kill\"\ntarget = \"master:broker-z\"\n",
                "t.toml:4: faults[0].target: \"master:broker-z\": no broker group named \"broker-z\""},
        BadCase{"a slave of a group without", "[[faults]]\nat = \"1s\"\naction = \"kill\"\ntarget = \"slave:broker-a\"\n",
                "t.toml:4: faults[0].target: \"slave:broker-a\": group broker-a has no slaves"},
        BadCase{"the leader of no controllers", "[[faults]]\nat = \"1s\"\naction = \"kill\"\ntarget = \"controller:leader\"\n",
                "t.toml:4: faults[0].target: controller:leader needs controllers"},
        BadCase{"controller mode without controllers", "[[brokers]]\ncontroller_mode = true\n",
                "t.toml:2: brokers[0].controller_mode: a group in controller mode needs controllers"},
        BadCase{"unknown peer",
                "[[faults]]\nat = \"1s\"\naction = \"partition\"\ntarget = \"broker-a\"\npeers = [\"namesrv-0\", \"nobody\"]\n",
                "t.toml:5: faults[0].peers: \"nobody\" is not a node"},
        BadCase{"a slave that is not there", "[[faults]]\nat = \"1s\"\naction = \"kill\"\ntarget = \"broker-a-s1\"\n",
                "t.toml:4: faults[0].target: \"broker-a-s1\" is not a node"},
        BadCase{"promote a master", "[[faults]]\nat = \"1s\"\naction = \"promote_slave\"\ntarget = \"broker-a\"\n",
                "faults[0].target: \"broker-a\" is not a slave"},
        BadCase{"an option the action does not take", "[[faults]]\nat = \"1s\"\naction = \"kill\"\ntarget = \"broker-a\"\nlatency = \"1s\"\n",
                "t.toml:5: faults[0].latency: not used by action kill"},
        BadCase{"a duration the action does not take", "[[faults]]\nat = \"1s\"\naction = \"heal_all\"\nduration = \"1s\"\n",
                "t.toml:4: faults[0].duration: not used by action heal_all"},
        BadCase{"peers missing", "[[faults]]\nat = \"1s\"\naction = \"clog\"\ntarget = \"broker-a\"\nlatency = \"1s\"\n",
                "faults[0].peers: action clog needs peers"},
        BadCase{"fault after the run", "[run]\nlength = \"10s\"\n[[faults]]\nat = \"11s\"\naction = \"heal_all\"\n",
                "t.toml:3: faults[0].at: 11s is after the end of the run"},
        BadCase{"a CommitLog file the size of the largest message", "[[brokers]]\ncommit_log_file_size_bytes = 65536\n",
                "brokers[0].message_size_max_bytes: 65536 bytes and a file's 8-byte end marker do not fit a CommitLog file"},
        BadCase{"a slow disk without its latency", "[[faults]]\nat = \"1s\"\naction = \"slow_disk\"\ntarget = \"broker-a\"\n",
                "t.toml:1: faults[0].latency: slow_disk needs the extra latency"},
        BadCase{"a slow disk takes no peers",
                "[[faults]]\nat = \"1s\"\naction = \"slow_disk\"\ntarget = \"broker-a\"\nlatency = \"1s\"\npeers = \"namesrv-0\"\n",
                "t.toml:6: faults[0].peers: not used by action slow_disk"},
        BadCase{"a slow disk's latency out of range",
                "[[faults]]\nat = \"1s\"\naction = \"slow_disk\"\ntarget = \"broker-a\"\nlatency = \"11m\"\n",
                "t.toml:5: faults[0].latency: 11m is out of range"},
        BadCase{"a queue change of a topic the scenario does not have",
                "[[topics]]\nname = \"T\"\n[[faults]]\nat = \"1s\"\naction = \"update_topic\"\ntarget = \"broker-a\"\n"
                "topic = \"U\"\nqueues = 8\n",
                "t.toml:7: faults[0].topic: \"U\" is not a topic of the scenario"},
        BadCase{"a queue change without its count",
                "[[topics]]\nname = \"T\"\n[[faults]]\nat = \"1s\"\naction = \"update_topic\"\ntarget = \"broker-a\"\n"
                "topic = \"T\"\n",
                "faults[0].queues: update_topic needs the new queue count"},
        BadCase{"a queue count out of range",
                "[[topics]]\nname = \"T\"\n[[faults]]\nat = \"1s\"\naction = \"update_topic\"\ntarget = \"broker-a\"\n"
                "topic = \"T\"\nqueues = 0\n",
                "t.toml:8: faults[0].queues:"},
        BadCase{"a queue change sent to a NameServer",
                "[[topics]]\nname = \"T\"\n[[faults]]\nat = \"1s\"\naction = \"update_topic\"\ntarget = \"namesrv-0\"\n"
                "topic = \"T\"\nqueues = 8\n",
                "faults[0].target: \"namesrv-0\" is not a broker group's master"},
        BadCase{"a skew finer than a millisecond",
                "[[faults]]\nat = \"1s\"\naction = \"skew_clock\"\ntarget = \"broker-a\"\nskew = \"1500us\"\n",
                "t.toml:5: faults[0].skew: a wall clock jumps by whole milliseconds"},
        BadCase{"an empty target list", "[[faults]]\nat = \"1s\"\naction = \"kill\"\ntarget = []\n",
                "t.toml:4: faults[0].target: action kill needs a target"},
        BadCase{"a client hurt before it starts",
                "[[topics]]\nname = \"T\"\n[[consumers]]\nstart_at = \"5s\"\n[[faults]]\nat = \"1s\"\naction = \"kill\"\ntarget = \"consumer-0\"\n",
                "t.toml:8: faults[0].target: \"consumer-0\" starts at 5s, after this fault (1s)"},
        BadCase{"negative number", "[[brokers]]\nslaves = -1\n", "t.toml:2: brokers[0].slaves: -1 is out of range 0..4"},
        BadCase{"too large number", "[[topics]]\nname = \"T\"\nqueues = 5000\n", "t.toml:3: topics[0].queues: 5000 is out of range 1..1024"},
        BadCase{"too many NameServers", "[cluster]\nnamesrvs = 9\n", "t.toml:2: cluster.namesrvs: 9 is out of range 1..8"},
        BadCase{"negative skew is fine, but not a negative at", "[[faults]]\nat = \"-1s\"\naction = \"heal_all\"\n",
                "t.toml:2: faults[0].at: \"-1s\": a duration here cannot be signed"},
        BadCase{"undeclared topic", "[[topics]]\nname = \"T\"\n[[producers]]\ntopic = \"U\"\n",
                "t.toml:4: producers[0].topic: \"U\" is not a declared topic (T)"},
        BadCase{"rate and interval", "[[topics]]\nname = \"T\"\n[[producers]]\nrate = 5\ninterval = \"1s\"\n",
                "producers[0].rate: give rate or interval, not both"},
        BadCase{"a node name taken twice", "[[topics]]\nname = \"T\"\n[[consumers]]\nnode = \"broker-a\"\n",
                "t.toml:4: consumers[0].node: \"broker-a\" is the name of another node"},
        BadCase{"duplicate group", "[[brokers]]\nname = \"b\"\n[[brokers]]\nname = \"b\"\n",
                "t.toml:4: brokers[1].name: \"b\" is used by another group"},
        BadCase{"a count bound below -1", "[checks.send_outcomes]\nfailed_max = -2\n",
                "t.toml:2: checks.send_outcomes.failed_max: -2 is out of range -1..1000000000"},
        BadCase{"an optional group must still exist", "[checks.send_outcomes]\ngroup = \"broker-q\"\n",
                "t.toml:2: checks.send_outcomes.group: \"broker-q\" is not a broker group"},
        BadCase{"check names a missing group", "[checks.failover]\ngroup = \"broker-q\"\n",
                "t.toml:2: checks.failover.group: \"broker-q\" is not a broker group"},
        BadCase{"TOML syntax", "name = \"x\"\n[run\n", "t.toml:2: "}),
    [](const ::testing::TestParamInfo<BadCase>& info) { return std::to_string(info.index); });

TEST(ScenarioParse, EntriesAndTextAreBounded) {
  std::string many = "[[topics]]\nname = \"T\"\n";
  for (std::size_t i = 0; i <= kProducersMax; ++i) many += "[[producers]]\n";
  EXPECT_NE(parse_error(many).find("t.toml:3: producers: 65 entries; at most 64"), std::string::npos) << parse_error(many);
  const std::string huge = "story = \"" + std::string(kScenarioTextBytesMax, 'x') + "\"\n";
  EXPECT_NE(parse_error(huge).find("a scenario is at most"), std::string::npos);
}

TEST(ScenarioParse, EveryProblemOfAFileIsReportedAtOnce) {
  const std::string e = parse_error("colour = 1\n[cluster]\nnamesrvs = 0\n[run]\nlength = \"soon\"\n");
  EXPECT_NE(e.find("t.toml:1: colour: unknown key"), std::string::npos) << e;
  EXPECT_NE(e.find("t.toml:3: cluster.namesrvs: 0 is out of range"), std::string::npos) << e;
  EXPECT_NE(e.find("t.toml:5: run.length:"), std::string::npos) << e;
}

// ---- the files in scenarios/ ---------------------------------------------------------------

TEST(ScenarioFiles, EveryFileInScenariosParses) {
  const char* src = std::getenv("FERRY_SOURCE_DIR");
  ASSERT_NE(src, nullptr) << "FERRY_SOURCE_DIR is set by ctest (FERRY_SOURCE_DIR=$PWD to run by hand)";
  auto files = sim::io::scenario_files(std::string(src) + "/scenarios");
  ASSERT_TRUE(files.ok()) << files.error().to_string();
  EXPECT_GE(files->size(), 3u);
  for (const std::string& f : *files) {
    auto s = sim::io::load_scenario(f);
    ASSERT_TRUE(s.ok()) << s.error().detail;
    EXPECT_FALSE(s->story.empty()) << f << ": every scenario tells its story in one line";
    expect_round_trip(*s);
    EXPECT_EQ(s->file, f);
  }
}

TEST(ScenarioFiles, AMissingFileIsNotFound) {
  auto s = sim::io::load_scenario("no-such-dir/none.toml");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().code, Errc::not_found) << s.error().to_string();
  EXPECT_NE(s.error().detail.find("no-such-dir/none.toml"), std::string::npos);
}

// ---- a story cut short (mqsim run --length) --------------------------------------------------

TEST(ScenarioCut, ProducersStopAndLaterFaultsGoAtTheCut) {
  Scenario s = parse_ok(R"(
[[brokers]]
name = "broker-a"
[[topics]]
name = "Quotes"
[[producers]]
node = "producer-0"
rate = 10
duration = "12m"
[[producers]]
node = "producer-1"
rate = 4
duration = "10s"
start_at = "5s"
[[faults]]
at = "10s"
action = "kill"
target = "broker-a"
duration = "5s"
[[faults]]
at = "3m30s"
action = "kill"
target = "broker-a"
[run]
length = "12m30s"
)");
  ASSERT_EQ(s.producers.size(), 2u);
  EXPECT_EQ(cut_to_length(s, 3min + 30s), 1u) << "the fault due at the cut itself goes";
  EXPECT_EQ(s.run.length, 3min + 30s);
  EXPECT_EQ(s.producers[0].spec.messages, 2100u) << "10 a second for 210 s";
  EXPECT_EQ(s.producers[1].spec.messages, 40u) << "a plan that ends before the cut stays whole";
  ASSERT_EQ(s.faults.size(), 1u);
  EXPECT_EQ(s.faults[0].at, 10s);

  // A cut past the story's end changes nothing.
  const std::uint64_t before = s.producers[0].spec.messages;
  EXPECT_EQ(cut_to_length(s, 20min), 0u);
  EXPECT_EQ(s.run.length, 3min + 30s);
  EXPECT_EQ(s.producers[0].spec.messages, before);
}

// ---- applying a schedule to a running cluster ----------------------------------------------

}  // namespace
}  // namespace ferry::sim::scenario
