// Property 6 of issue 16 end to end: a SYNC_FLUSH broker that loses power keeps a CommitLog that
// is a prefix of what it appended, with every synced record (store-prefix passes, with records
// compared); the same broker behind a lying disk (fault lying_disk: syncs report success and
// make nothing durable) loses what it acknowledged, and store-prefix and lost-acked both say so.
// The StoreObserver only reads: a run watched by it has the trace hash of one that is not.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "sim/check/checkers.h"
#include "sim/check/store_prefix.h"
#include "sim/cluster/cluster.h"
#include "sim/cluster/workload.h"
#include "sim/disk/disk.h"
#include "sim/scenario/fault_schedule.h"
#include "sim/scenario/runner.h"
#include "sim/scenario/scenario_parser.h"
#include "sim/scenario/scenario_writer.h"
#include "sim/scenario/store_observer.h"
#include "sim/scenario/watch.h"
#include "tests/support/sim_test_util.h"

namespace ferry::sim::scenario {
namespace {

using namespace std::chrono_literals;

// One SYNC_FLUSH broker, a producer at 20 messages a second, power lost at 6 s for 2 s, and a
// consumer that starts at 9 s (it reads only what the broker recovered). `extra_faults` go before
// the power loss in the file.
std::string power_loss_scenario(const std::string& extra_faults) {
  return fmt::format(R"(
story = "a SYNC_FLUSH broker loses power under load and recovers its CommitLog"
[[brokers]]
name = "broker-a"
flush = "SYNC_FLUSH"
[[topics]]
name = "T"
queues = 2
[[producers]]
node = "producer-0"
rate = 20
duration = "10s"
[[consumers]]
node = "consumer-0"
start_at = "9s"
consume_from = "CONSUME_FROM_FIRST_OFFSET"
{}
[[faults]]
at = "6s"
action = "power_off"
target = "broker-a"
duration = "2s"
[run]
length = "15s"
[liveness]
bound = "1m"
[checks]
lost = "strict"
)",
                     extra_faults);
}

Scenario parse_ok(const std::string& text) {
  auto s = parse_scenario(text, "t.toml");
  EXPECT_TRUE(s.ok()) << s.error().to_string();
  return s.ok() ? *s : Scenario{};
}

std::string parse_error(const std::string& text) {
  auto s = parse_scenario(text, "t.toml");
  return s.ok() ? "(parsed)" : s.error().detail;
}

const check::Verdict& verdict(const RunOutcome& run, const std::string& name) {
  for (const check::Verdict& v : run.verdicts) {
    if (v.name == name) return v;
  }
  ADD_FAILURE() << "no verdict " << name;
  static const check::Verdict none;
  return none;
}

// The lying_disk action: parsed, written back, undone after its duration or by the heal.
TEST(StorePrefixRun, LyingDiskParsesWritesBackAndIsUndone) {
  const Scenario s = parse_ok(power_loss_scenario(
      "[[faults]]\nat = \"1s\"\naction = \"lying_disk\"\ntarget = \"broker-a\"\nduration = \"2s\"\n"
      "[[faults]]\nat = \"4s\"\naction = \"lying_disk\"\ntarget = \"broker-a\"\n"));
  ASSERT_EQ(s.faults.size(), 3u);
  EXPECT_EQ(s.faults[0].action, "lying_disk");
  EXPECT_NE(write_scenario(s).find("action = \"lying_disk\"\ntarget = [\"broker-a\"]\nduration = \"2s\""), std::string::npos)
      << write_scenario(s);
  EXPECT_NE(parse_error("[[faults]]\nat = \"1s\"\naction = \"lying_disk\"\ntarget = \"broker-a\"\nlatency = \"1s\"\n")
                .find("faults[0].latency: not used by action lying_disk"),
            std::string::npos);

  cluster::Cluster c(testing::test_options(5), s.cluster);
  ASSERT_TRUE(c.boot().ok()) << c.describe();
  FaultInjector faults(c, std::make_shared<sim::History>());
  const SimDisk& disk = c.world().node(c.broker_node(0)).disk();
  std::vector<std::string> seen;
  for (const FaultStep& step : fault_timeline(s)) {
    if (step.entry->action == "power_off") continue;
    ASSERT_TRUE(faults.apply(step).ok()) << step.describe();
    seen.push_back(fmt::format("{}: {}", step.describe(), disk.options().lying_sync ? "lying" : "honest"));
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"1s lying_disk broker-a: lying", "3s end of lying_disk broker-a: honest",
                                            "4s lying_disk broker-a: lying"}));
  faults.heal_all();
  EXPECT_FALSE(disk.options().lying_sync) << "the heal makes the disk honest again";
}

TEST(StorePrefixRun, APowerLossUnderSyncFlushKeepsASyncedPrefix) {
  (void)testing::test_options(1);  // quiets node logs unless FERRY_LOG is set
  const RunOutcome run = run_scenario(parse_ok(power_loss_scenario("")), 1);
  ASSERT_FALSE(run.error.has_value()) << run.error->to_string();
  const check::Verdict& v = verdict(run, "store-prefix");
  EXPECT_TRUE(v.passed) << v.to_line();
  EXPECT_EQ(v.figures.at("restarts"), 1) << v.to_line();
  EXPECT_GT(v.figures.at("records_compared"), 50) << v.to_line();
  EXPECT_GT(v.figures.at("bytes_compared"), 0) << v.to_line();
  ASSERT_EQ(run.history->store_restarts.size(), 1u);
  const sim::StoreRestartRecord& r = run.history->store_restarts.front();
  EXPECT_EQ(r.broker, "broker-a");
  EXPECT_GT(r.before_synced.value(), 0);
  EXPECT_GE(r.recovered_end, r.before_synced);
  EXPECT_NE(r.detail.find("power_off broker-a"), std::string::npos) << r.detail;
  EXPECT_TRUE(verdict(run, "lost-acked").passed) << verdict(run, "lost-acked").to_line();
  EXPECT_TRUE(run.passed()) << run.first_failure();
}

TEST(StorePrefixRun, ALyingDiskLosesSyncedRecordsAndBothCheckersSaySo) {
  (void)testing::test_options(1);
  const std::string lie = "[[faults]]\nat = \"5500ms\"\naction = \"lying_disk\"\ntarget = \"broker-a\"\n";
  const RunOutcome run = run_scenario(parse_ok(power_loss_scenario(lie)), 1);
  ASSERT_FALSE(run.error.has_value()) << run.error->to_string();
  const check::Verdict& v = verdict(run, "store-prefix");
  EXPECT_FALSE(v.passed) << v.to_line();
  EXPECT_EQ(v.figures.at("synced_lost"), 1) << v.to_line();
  EXPECT_NE(v.first_violation.find("broker-a restarted"), std::string::npos) << v.first_violation;
  EXPECT_NE(v.first_violation.find("lost synced data"), std::string::npos) << v.first_violation;
  ASSERT_TRUE(v.first_violation_at.has_value());
  EXPECT_GE(*v.first_violation_at, run.start + 8s) << "judged once the broker is back";
  const check::Verdict& lost = verdict(run, "lost-acked");
  EXPECT_FALSE(lost.passed) << lost.to_line();
  EXPECT_GT(lost.figures.at("lost"), 0) << lost.to_line();
}

// A planted violation the observer must see: while broker-a is down after a power loss, one byte
// of a synced record is flipped on its disk. Recovery in skip mode marks the damaged range
// unreadable and keeps the records after it: the log is no longer a prefix of what was appended.
TEST(StorePrefixRun, ARecordDamagedWhileTheBrokerIsDownIsAMismatch) {
  Scenario s = parse_ok(power_loss_scenario(""));
  s.cluster.brokers[0].store.recover_mode = store::RecoverMode::skip;
  cluster::Cluster c(testing::test_options(6), s.cluster);
  ASSERT_TRUE(c.boot().ok()) << c.describe();
  auto history = std::make_shared<sim::History>();
  c.add_client(s.producers[0].node, cluster::producer_app(s.producers[0].spec, history));
  Watch watch(250ms);
  StoreObserver stores(c, history);
  watch.add([&stores](MonoTime now) { stores.look(now); });
  const NodeId broker = c.broker_node(0);
  const MonoTime start = c.world().now();
  watch.advance(c, start + 5s);
  const std::int64_t flushed = c.broker(0)->store().commit_log().flushed_offset().value();
  ASSERT_GT(flushed, 4096) << "enough synced to damage one record in the middle";
  c.crash(broker, CrashKind::power_loss);

  SimNode& node = c.world().node(broker);
  std::string log_file;
  for (const std::string& p : node.disk().paths()) {
    if (p.find("commitlog/") != std::string::npos && log_file.empty()) log_file = p;
  }
  ASSERT_FALSE(log_file.empty()) << "no CommitLog file on the disk";
  auto f = node.fs().open(log_file, OpenOptions{});
  ASSERT_TRUE(f.ok()) << f.error().to_string();
  std::uint8_t byte = 0;
  ASSERT_TRUE((*f)->pread(2000, MutableBytes(&byte, 1)).ok());
  byte ^= 0x5a;
  ASSERT_TRUE((*f)->pwrite(2000, Bytes(&byte, 1)).ok());

  c.start(broker);
  watch.advance(c, start + 8s);
  ASSERT_EQ(history->store_restarts.size(), 1u);
  const sim::StoreRestartRecord& r = history->store_restarts.front();
  ASSERT_TRUE(r.first_mismatch.has_value()) << r.detail;
  EXPECT_LE(r.first_mismatch->value(), 2000);
  EXPECT_GT(r.first_mismatch->value() + 400, 2000) << "the record holding byte 2000";
  const check::Verdict v = check::check_store_prefix(*history);
  EXPECT_FALSE(v.passed);
  EXPECT_EQ(v.figures.at("mismatches"), 1) << v.to_line();
  EXPECT_NE(v.first_violation.find("broker-a restarted"), std::string::npos) << v.first_violation;
  EXPECT_NE(v.first_violation.find(fmt::format("at offset {}", r.first_mismatch->value())), std::string::npos) << v.first_violation;
}

// The observer reads the stores and the disks without changing anything: the same seed and
// schedule give the same final hash with it looking every 250 ms and without it.
std::uint64_t final_hash(const Scenario& s, std::uint64_t seed, bool observe) {
  cluster::Cluster c(testing::test_options(seed), s.cluster);
  EXPECT_TRUE(c.boot().ok()) << c.describe();
  auto history = std::make_shared<sim::History>();
  c.add_client(s.producers[0].node, cluster::producer_app(s.producers[0].spec, history));
  FaultInjector faults(c, history);
  Watch watch(250ms);
  StoreObserver stores(c, history);
  if (observe) watch.add([&stores](MonoTime now) { stores.look(now); });
  const MonoTime start = c.world().now();
  for (const FaultStep& step : fault_timeline(s)) {
    watch.advance(c, start + step.at);
    EXPECT_TRUE(faults.apply(step).ok()) << step.describe();
  }
  watch.advance(c, start + s.run.length);
  if (observe) {
    EXPECT_EQ(history->store_restarts.size(), 1u) << "the observer saw the restart";
  }
  return c.world().final_hash();
}

TEST(StorePrefixRun, TheObserverDoesNotChangeTheRun) {
  const Scenario s = parse_ok(power_loss_scenario(""));
  for (std::uint64_t seed : {3u, 4u}) {
    EXPECT_EQ(final_hash(s, seed, true), final_hash(s, seed, false)) << "seed " << seed;
  }
}

}  // namespace
}  // namespace ferry::sim::scenario
