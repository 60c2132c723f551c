// Scenario files (sim/scenario), run: a parsed fault schedule, applied to a running Cluster, does
// what it says (a broker killed, then restarted; a link cut and healed; a disk filled and given
// back); refusals are errors, not crashes; every file in scenarios/ runs and converges; every
// consumer kind holds its queues; the failover file promotes the slave.
//
//   build/bin/sim_scenario_test --gtest_filter='ScenarioRun.*'
//   FERRY_SIM_SEEDS=1-20 build/bin/sim_scenario_test --gtest_filter='ScenarioRun.EveryFile*'   # a sweep
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

constexpr const char* kTiny = R"(
story = "a broker killed at 2 s and restarted at 6 s; a client cut off from it for 3 s; its disk filled for 2 s, then slow for 1 s"
[[topics]]
name = "T"
queues = 2
[[producers]]
messages = 200
interval = "50ms"
[[faults]]
at = "2s"
action = "kill"
target = "broker-a"
[[faults]]
at = "6s"
action = "restart"
target = "broker-a"
[[faults]]
at = "12s"
action = "partition"
target = "producer-0"
peers = "broker-a"
duration = "3s"
[[faults]]
at = "16s"
action = "fill_disk"
target = "broker-a"
duration = "2s"
[[faults]]
at = "18500ms"
action = "slow_disk"
target = "broker-a"
latency = "700ms"
duration = "1s"
[run]
length = "20s"
)";

TEST(ScenarioRun, AppliedScheduleKillsRestartsCutsAndFills) {
  const Scenario s = parse_ok(kTiny);
  cluster::Cluster c(testing::test_options(7), s.cluster);
  ferry::testing::TraceOnExit trace(c.world());
  ASSERT_TRUE(c.boot().ok()) << c.describe();
  auto history = std::make_shared<cluster::History>();
  const NodeId producer = c.add_client(s.producers[0].node, cluster::producer_app(s.producers[0].spec, history));
  const NodeId broker = c.broker_node(0);
  FaultInjector faults(c, history);
  const MonoTime start = c.world().now();
  auto run_to = [&](Duration t) { c.run_for(start + t - c.world().now()); };
  auto sends_ok_between = [&](Duration from, Duration to) {
    std::size_t n = 0;
    for (const cluster::SendRecord& r : history->sends) {
      if (r.outcome == cluster::SendOutcome::ok && r.done_at >= start + from && r.done_at < start + to) ++n;
    }
    return n;
  };
  for (const FaultStep& step : fault_timeline(s)) {
    run_to(step.at);
    // What the previous steps did, seen just before this one.
    if (step.entry->action == "restart") {
      EXPECT_FALSE(c.world().node(broker).up()) << "killed at 2 s, still down at 6 s";
      EXPECT_EQ(c.broker(0), nullptr);
    }
    if (step.entry->action == "partition" && !step.undo) {
      ASSERT_NE(c.broker(0), nullptr) << "restarted at 6 s, up at 12 s; " << c.describe();
      EXPECT_EQ(c.broker(0)->state(), broker::Broker::State::running);
      EXPECT_GT(sends_ok_between(8s, 12s), 0u) << "sends succeed again once the broker is back";
    }
    if (step.entry->action == "partition" && step.undo) {
      EXPECT_FALSE(c.world().net().link_up(producer, broker)) << "cut for 3 s";
    }
    Status applied = faults.apply(step);
    ASSERT_TRUE(applied.ok()) << step.describe() << ": " << applied.error().to_string();
    if (step.entry->action == "kill") {
      EXPECT_FALSE(c.world().node(broker).up());
    }
    if (step.entry->action == "partition") {
      EXPECT_EQ(c.world().net().link_up(producer, broker), step.undo) << step.describe();
    }
    if (step.entry->action == "fill_disk") {
      const SimDisk& disk = c.world().node(broker).disk();
      if (step.undo) {
        EXPECT_EQ(disk.options().capacity_bytes, DiskOptions{}.capacity_bytes) << "given back";
      } else {
        EXPECT_EQ(disk.options().capacity_bytes, disk.used_bytes()) << "full: free_bytes defaults to 0";
      }
    }
    if (step.entry->action == "slow_disk") {
      const SimDisk& disk = c.world().node(broker).disk();
      const Duration normal = DiskOptions{}.sync_latency;
      EXPECT_EQ(disk.options().sync_latency, step.undo ? normal : normal + 700ms) << step.describe();
    }
  }
  EXPECT_EQ(sends_ok_between(3s, 6s), 0u) << "nothing is acknowledged while the only broker is dead";
  std::vector<std::string> events;
  for (const sim::Event& e : history->events) {
    if (e.kind != sim::EventKind::start) events.push_back(fmt::format("{} {} {}", sim::event_kind_name(e.kind), e.target, e.detail));
  }
  EXPECT_EQ(events, (std::vector<std::string>{
                        "crash broker-a 2s kill broker-a",
                        "crash broker-a 6s restart broker-a",
                        "fault producer-0 12s partition producer-0 / broker-a",
                        "fault broker-a 12s partition producer-0 / broker-a",
                        "heal producer-0 15s end of partition producer-0 / broker-a",
                        "heal broker-a 15s end of partition producer-0 / broker-a",
                        "fault broker-a 16s fill_disk broker-a",
                        "heal broker-a 18s end of fill_disk broker-a",
                        "fault broker-a 18s500ms slow_disk broker-a",
                        "heal broker-a 19s500ms end of slow_disk broker-a",
                    }))
      << "every applied step is an event of the history";
  run_to(s.run.length);
  const cluster::LivenessReport live =
      c.heal_and_converge({c.brokers_running(), cluster::producers_done(c, {producer})}, s.liveness.bound);
  EXPECT_TRUE(live.converged) << live.to_string() << "; " << c.describe();
}

TEST(ScenarioRun, RefusalsAreErrorsNotCrashes) {
  const Scenario s = parse_ok(R"(
[[brokers]]
slaves = 1
[[faults]]
at = "1s"
action = "wipe_disk"
target = "broker-a"
[[faults]]
at = "2s"
action = "promote_slave"
target = "broker-a-s1"
[[faults]]
at = "3s"
action = "promote_slave"
target = "broker-a-s1"
)");
  cluster::Cluster c(testing::test_options(11), s.cluster);
  ferry::testing::TraceOnExit trace(c.world());
  ASSERT_TRUE(c.boot().ok()) << c.describe();
  FaultInjector faults(c);
  const std::vector<FaultStep> steps = fault_timeline(s);
  ASSERT_EQ(steps.size(), 3u);
  Status wiped = faults.apply(steps[0]);
  ASSERT_FALSE(wiped.ok()) << "a running node's disk is not wiped";
  EXPECT_NE(wiped.error().detail.find("broker-a is up"), std::string::npos) << wiped.error().detail;
  ASSERT_TRUE(faults.apply(steps[1]).ok());
  c.run_for(2s);
  const std::size_t slave = *c.slave_index(0);
  ASSERT_NE(c.broker(slave), nullptr);
  EXPECT_NE(c.broker(slave)->config().broker_role, broker::BrokerRole::slave) << "promoted";
  EXPECT_EQ(c.broker(slave)->config().broker_role, broker::BrokerRole::async_master) << "the group's role by default";
  EXPECT_TRUE(c.retired(c.broker_node(0))) << "the old master is not started again by the heal";
  Status again = faults.apply(steps[2]);
  ASSERT_FALSE(again.ok());
  EXPECT_NE(again.error().detail.find("not a slave"), std::string::npos) << again.error().detail;
  FaultStep unknown = steps[0];
  FaultEntry ghost = *steps[0].entry;
  ghost.targets = {"ghost"};
  unknown.entry = &ghost;
  Status none = faults.apply(unknown);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().detail.find("no node \"ghost\""), std::string::npos) << none.error().detail;
}

// A scenario file run by the runner mqsim uses (sim/scenario/runner.h), the test's log level set.
RunOutcome run_file(const Scenario& s, std::uint64_t seed) {
  (void)testing::test_options(seed);  // quiets node start/crash logs unless FERRY_LOG is set
  return run_scenario(s, seed);
}

// Seed 1, or FERRY_SIM_SEEDS="17" / "1-40" (tests may read the environment).
std::pair<std::uint64_t, std::uint64_t> seed_range() {
  const std::vector<std::uint64_t> seeds = testing::sim_seeds(1, 1);
  return {seeds.front(), seeds.back()};
}

TEST(ScenarioRun, EveryFileRunsAndConverges) {
  const char* src = std::getenv("FERRY_SOURCE_DIR");
  ASSERT_NE(src, nullptr) << "FERRY_SOURCE_DIR is set by ctest";
  auto files = sim::io::scenario_files(std::string(src) + "/scenarios");
  ASSERT_TRUE(files.ok()) << files.error().to_string();
  const auto [first, last] = seed_range();
  for (const std::string& f : *files) {
    auto loaded = sim::io::load_scenario(f);
    ASSERT_TRUE(loaded.ok()) << loaded.error().detail;
    for (std::uint64_t seed = first; seed <= last; ++seed) {
      RunOutcome run = run_file(*loaded, seed);
      ASSERT_FALSE(run.error.has_value()) << f << " seed " << seed << ": " << run.error->to_string();
      ferry::testing::record_trace(run.cluster->world(), fmt::format("{}/{}", loaded->name, seed));
      const std::string replay = fmt::format("{} seed {}; replay: FERRY_SIM_SEEDS={} build/bin/sim_scenario_test "
                                             "--gtest_filter=ScenarioRun.EveryFile*",
                                             f, seed, seed);
      EXPECT_TRUE(run.live.converged) << run.live.to_string() << "; " << run.cluster->describe() << "\n" << replay;
      // The checkers of sim/check judge the run by the file's rules.
      for (const check::Verdict& v : run.verdicts) {
        EXPECT_TRUE(v.passed) << v.to_line() << "\n" << replay;
      }
    }
  }
}

// Every consumer kind runs: two orderly members split the queues (each holding its broker locks),
// a lite pull consumer holds all of its group's, each of two broadcast consumers holds every queue
// and receives everything itself; the History knows each consumer and the brokers' commits.
TEST(ScenarioRun, EveryConsumerKindRunsAndHoldsItsQueues) {
  const Scenario s = parse_ok(R"(
[[brokers]]
name = "broker-a"
flush = "SYNC_FLUSH"
[[brokers]]
name = "broker-b"
flush = "SYNC_FLUSH"
[[topics]]
name = "T"
queues = 2
ordered = true
[[producers]]
rate = 20
duration = "10s"
[[consumers]]
node = "orderly-0"
group = "o"
mode = "orderly"
consume_from = "CONSUME_FROM_FIRST_OFFSET"
[[consumers]]
node = "orderly-1"
group = "o"
mode = "orderly"
consume_from = "CONSUME_FROM_FIRST_OFFSET"
[[consumers]]
node = "puller"
group = "p"
kind = "lite_pull"
consume_from = "CONSUME_FROM_FIRST_OFFSET"
[[consumers]]
node = "watcher-0"
group = "w"
model = "BROADCASTING"
consume_from = "CONSUME_FROM_FIRST_OFFSET"
[[consumers]]
node = "watcher-1"
group = "w"
model = "BROADCASTING"
consume_from = "CONSUME_FROM_FIRST_OFFSET"
[run]
length = "20s"
[checks]
corrupt = false
per_key_order = false
offsets_monotonic = false
)");
  RunOutcome run = run_file(s, 5);
  ASSERT_FALSE(run.error.has_value()) << run.error->to_string();
  cluster::Cluster& c = *run.cluster;
  ferry::testing::record_trace(c.world());
  ASSERT_TRUE(run.live.converged) << run.live.to_string() << "; " << c.describe();
  EXPECT_TRUE(run.passed()) << run.first_failure();
  auto held = [&](const std::string& name) {
    const std::optional<NodeId> n = c.world().find_node(name);
    EXPECT_TRUE(n.has_value()) << name;
    std::optional<std::vector<MessageQueue>> q = n ? cluster::held_queues_of(c, *n) : std::nullopt;
    EXPECT_TRUE(q.has_value()) << name << " is up";
    std::set<MessageQueue> of_t;  // (push clustering consumers also hold %RETRY%{group})
    for (const MessageQueue& m : q.value_or(std::vector<MessageQueue>{})) {
      if (m.topic == "T") of_t.insert(m);
    }
    return of_t;
  };
  const std::set<MessageQueue> all = {{"T", "broker-a", QueueId(0)}, {"T", "broker-a", QueueId(1)},
                                      {"T", "broker-b", QueueId(0)}, {"T", "broker-b", QueueId(1)}};
  const std::set<MessageQueue> o0 = held("orderly-0"), o1 = held("orderly-1");
  EXPECT_EQ(o0.size(), 2u);
  EXPECT_EQ(o1.size(), 2u);
  std::set<MessageQueue> both = o0;
  both.insert(o1.begin(), o1.end());
  EXPECT_EQ(both, all) << "the orderly members split the queues, each locked by one";
  EXPECT_EQ(held("puller"), all);
  EXPECT_EQ(held("watcher-0"), all) << "a broadcast consumer holds every queue";
  EXPECT_EQ(held("watcher-1"), all);
  const std::optional<NodeId> orderly = c.world().find_node("orderly-0");
  ASSERT_NE(cluster::push_consumer_of(c, *orderly), nullptr);
  EXPECT_TRUE(cluster::push_consumer_of(c, *orderly)->orderly());
  EXPECT_NE(cluster::lite_pull_consumer_of(c, *c.world().find_node("puller")), nullptr);
  EXPECT_EQ(cluster::push_consumer_of(c, *c.world().find_node("puller")), nullptr);

  const sim::History& h = *run.history;
  EXPECT_EQ(h.acked().size(), 200u);
  for (const char* w : {"watcher-0", "watcher-1"}) {
    std::set<std::uint64_t> got;
    for (const sim::ConsumeRecord& r : h.consumes) {
      if (r.consumer == w) got.insert(r.seq);
    }
    EXPECT_EQ(got.size(), 200u) << w << " received everything itself";
  }
  EXPECT_EQ(h.consumed_by("o").size(), 200u);
  EXPECT_EQ(h.consumed_by("p").size(), 200u);
  ASSERT_EQ(h.consumers.size(), 5u);
  EXPECT_EQ(h.consumers.at("orderly-1").kind, "push-orderly");
  EXPECT_EQ(h.consumers.at("puller").kind, "lite-pull");
  EXPECT_TRUE(h.consumers.at("watcher-1").broadcast);
  EXPECT_FALSE(h.consumers.at("orderly-1").broadcast);
  // Commits of the clustering groups on both brokers (broadcast offsets live in local files).
  std::set<std::pair<std::string, std::string>> committed;  // (group, broker)
  for (const sim::CommitRecord& r : h.commits) committed.emplace(r.group, r.broker);
  for (const char* g : {"o", "p"}) {
    EXPECT_EQ(committed.count({g, "broker-a"}), 1u) << g;
    EXPECT_EQ(committed.count({g, "broker-b"}), 1u) << g;
  }
  EXPECT_EQ(committed.count({"w", "broker-a"}), 0u);
  // The file's check settings reach the History (mqsim check re-judges with them).
  EXPECT_FALSE(h.settings.corrupt_fails);
  EXPECT_EQ(h.settings.per_key_order, std::optional<bool>(false));
  EXPECT_FALSE(h.settings.offsets_monotonic);
}

TEST(ScenarioRun, AGroupMixingMessageModelsIsRefused) {
  const Scenario s = parse_ok(R"(
[[topics]]
name = "T"
[[consumers]]
node = "a"
group = "g"
[[consumers]]
node = "b"
group = "g"
model = "BROADCASTING"
)");
  const RunOutcome run = run_file(s, 1);
  ASSERT_TRUE(run.error.has_value());
  EXPECT_EQ(run.error->code, Errc::invalid_argument);
  EXPECT_NE(run.error->detail.find("consumers a and b of group g differ in message model"), std::string::npos) << run.error->detail;
}

TEST(ScenarioRun, FailoverFilePromotesTheSlave) {
  const char* src = std::getenv("FERRY_SOURCE_DIR");
  ASSERT_NE(src, nullptr) << "FERRY_SOURCE_DIR is set by ctest";
  auto loaded = sim::io::load_scenario(std::string(src) + "/scenarios/failover-sync-master.toml");
  ASSERT_TRUE(loaded.ok()) << loaded.error().detail;
  RunOutcome run = run_file(*loaded, 3);
  ASSERT_FALSE(run.error.has_value()) << run.error->to_string();
  cluster::Cluster& c = *run.cluster;
  ferry::testing::record_trace(c.world());
  EXPECT_TRUE(run.live.converged) << run.live.to_string() << "; " << c.describe();
  EXPECT_FALSE(c.world().node(c.broker_node(0)).up()) << "the replaced master stays down";
  const std::size_t slave = *c.slave_index(0);
  ASSERT_NE(c.broker(slave), nullptr);
  EXPECT_EQ(c.broker(slave)->config().broker_role, broker::BrokerRole::async_master) << "promoted at 40 s";
  std::size_t acked_on_a_after_promotion = 0;
  for (const cluster::SendRecord& r : run.history->sends) {
    if (r.outcome == cluster::SendOutcome::ok && r.queue.broker_name == "broker-a" && r.done_at > run.start + 40s) {
      ++acked_on_a_after_promotion;
    }
  }
  EXPECT_GT(acked_on_a_after_promotion, 0u) << "broker-a takes writes again after the promotion";
}

// Request-reply through restarts (scenarios/request-reply-restarts.toml): most requests get their
// own reply (the replies are real, not only timeouts), none another's. The same file with repliers
// that answer with the previous request's body fails `request-reply`, naming a request and the
// request whose reply it got (the proof that the check can fail).
TEST(ScenarioRun, RequestsGetTheirOwnRepliesAndAMixedUpReplierIsCaught) {
  const char* src = std::getenv("FERRY_SOURCE_DIR");
  ASSERT_NE(src, nullptr) << "FERRY_SOURCE_DIR is set by ctest";
  auto loaded = sim::io::load_scenario(std::string(src) + "/scenarios/request-reply-restarts.toml");
  ASSERT_TRUE(loaded.ok()) << loaded.error().detail;
  const auto verdict_of = [](const RunOutcome& run, const std::string& name) {
    for (const check::Verdict& v : run.verdicts) {
      if (v.name == name) return v;
    }
    return check::Verdict{};
  };
  RunOutcome run = run_file(*loaded, 5);
  ASSERT_FALSE(run.error.has_value()) << run.error->to_string();
  ferry::testing::record_trace(run.cluster->world(), "request-reply/5");
  const check::Verdict ok = verdict_of(run, "request-reply");
  ASSERT_EQ(ok.name, "request-reply");
  EXPECT_TRUE(ok.passed) << ok.to_line();
  EXPECT_EQ(ok.figures.at("requests"), 400) << ok.to_line();
  EXPECT_GE(ok.figures.at("replied"), 300) << ok.to_line();
  EXPECT_GE(ok.figures.at("timed_out"), 1) << "the kill and the pause leave requests unanswered: " << ok.to_line();

  Scenario mixed = *loaded;
  for (ConsumerScenario& c : mixed.consumers) c.spec.replies->body = cluster::ConsumerSpec::Replies::Body::previous;
  RunOutcome bad = run_file(mixed, 5);
  ASSERT_FALSE(bad.error.has_value()) << bad.error->to_string();
  const check::Verdict caught = verdict_of(bad, "request-reply");
  EXPECT_FALSE(caught.passed) << caught.to_line();
  EXPECT_GT(caught.figures.at("wrong_replies"), 0) << caught.to_line();
  EXPECT_NE(caught.first_violation.find("got the reply to"), std::string::npos) << caught.first_violation;
}

}  // namespace
}  // namespace ferry::sim::scenario
