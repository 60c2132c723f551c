// `mqsim check` on histories a short simulated run recorded: a clean run passes (json and binary
// files); the same history with a planted violation fails with exit 1 and names it; a truncated
// file is refused with exit 1 and says why. The mqsim binary's path comes from CMake (MQSIM_PATH).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>


#include "sim/check/registry.h"
#include "sim/cluster/cluster.h"
#include "sim/cluster/workload.h"
#include "sim/history/history_codec.h"
#include "sim/io/history_file.h"
#include "sim/scenario/fault_registry.h"
#include "tests/support/sim_test_util.h"
#include "tests/support/temp_dir.h"

namespace ferry::sim::cluster {
namespace {

struct Ran {
  int exit_code = -1;
  std::string output;
};

// A fresh folder for this run's files (other builds may run this test at the same time), with a
// trailing '/'; removed when the binary exits.
const std::string& scratch_dir() {
  static const ferry::testing::TempDir dir("mqsim_check_test", ::testing::TempDir());
  static const std::string with_slash = dir.path() + "/";
  return with_slash;
}

Ran mqsim(const std::string& args) {
  const std::string out_path = scratch_dir() + "mqsim.out";
  // From the scratch folder: a failed run saves its history in the current folder.
  const std::string command = "cd " + scratch_dir() + " && " + std::string(MQSIM_PATH) + " " + args + " > " + out_path + " 2>&1";
  const int status = std::system(command.c_str());
  Ran r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream in(out_path);
  std::stringstream ss;
  ss << in.rdbuf();
  r.output = ss.str();
  return r;
}

// One broker group, an ordered and an unordered producer, one consumer; every acknowledged
// message consumed.
std::shared_ptr<History> record_a_run() {
  ClusterSpec s;
  s.topics.push_back(TopicSpec{"Orders", 4});
  Cluster c(testing::test_options(11), s);
  EXPECT_TRUE(c.boot(std::chrono::minutes(1)).ok());
  auto history = std::make_shared<History>();
  std::vector<NodeId> producers;
  for (bool ordered : {false, true}) {
    ProducerSpec p;
    p.topic = "Orders";
    p.messages = 40;
    p.ordered = ordered;
    producers.push_back(c.add_client(ordered ? "producer-ordered" : "producer-plain", producer_app(p, history)));
  }
  ConsumerSpec cs;
  cs.topic = "Orders";
  cs.group = "readers";
  cs.config.consume_from_where = client::ConsumeFromWhere::CONSUME_FROM_FIRST_OFFSET;
  c.add_client("consumer-0", consumer_app(cs, history));
  const LivenessReport live =
      c.heal_and_converge({producers_done(c, producers), all_acked_consumed(history, "readers")}, std::chrono::minutes(2));
  EXPECT_TRUE(live.converged) << live.to_string();
  history->settings.offsets_dense = true;
  return history;
}

TEST(MqsimCheck, ARecordedRunPassesAndAPlantedViolationFailsNamingIt) {
  const std::shared_ptr<History> h = record_a_run();
  ASSERT_EQ(h->acked().size(), 80u);
  const std::string& dir = scratch_dir();
  for (const char* name : {"history.json", "history.bin"}) {
    const std::string path = dir + name;
    ASSERT_TRUE(sim::io::save_history_file(path, *h).ok());
    const Ran r = mqsim("check " + path);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("lost-acked: PASS"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("acked=80"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("ordered_acked=40"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("16 passed, 0 failed"), std::string::npos) << r.output;
  }

  // Planted: the first delivery of an acknowledged message vanishes (lost), and a delivery of a
  // message nobody sent appears (unexpected).
  History planted = *h;
  const SendRecord& victim = planted.sends.front();
  ASSERT_EQ(victim.outcome, SendOutcome::ok);
  std::erase_if(planted.consumes, [&](const ConsumeRecord& c) { return c.producer == victim.producer && c.seq == victim.seq; });
  ConsumeRecord ghost = planted.consumes.back();
  ghost.producer = "producer-ghost";
  ghost.seq = 7;
  planted.consumes.push_back(ghost);
  const std::string path = dir + "planted.bin";
  ASSERT_TRUE(sim::io::save_history_file(path, planted).ok());
  const Ran r = mqsim("check " + path);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("lost-acked: FAIL"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(victim.id() + " acknowledged at"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("unexpected: FAIL"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("producer-ghost#7 was never sent"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("failed ("), std::string::npos) << r.output;

  // A truncated file: exit 1, the path and the reason.
  std::string bytes = sim::encode_history(*h, sim::HistoryEncoding::binary);
  const std::string cut = dir + "cut.bin";
  std::ofstream(cut, std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  const Ran t = mqsim("check " + cut);
  EXPECT_EQ(t.exit_code, 1) << t.output;
  EXPECT_NE(t.output.find("truncated"), std::string::npos) << t.output;
}

// Seconds in "12.345678s" at `pos` (the node loggers' virtual time), or -1.
double seconds_at(const std::string& text, std::size_t pos) {
  const std::size_t end = text.find('s', pos);
  if (end == std::string::npos) return -1;
  try {
    return std::stod(text.substr(pos, end - pos));
  } catch (const std::exception&) {
    return -1;
  }
}

// After "FAILED:", the nodes' log lines around the first violation: a heading naming the
// violation's time, then lines "    [T s] [node] [level] text" with T within 2 s before to 1 s
// after it, some of them info lines (below the printed level), the broker's among them, and a
// marker where the violation falls.
void expect_node_logs_near_the_violation(const std::string& output) {
  const std::size_t failed = output.find("FAILED:");
  ASSERT_NE(failed, std::string::npos) << output;
  const std::string key = "(the first violation at ";
  const std::size_t heading = output.find(key, failed);
  ASSERT_NE(heading, std::string::npos) << output;
  const double t = seconds_at(output, heading + key.size());
  ASSERT_GT(t, 0) << output;
  EXPECT_NE(output.find("---- ", heading), std::string::npos) << output;
  std::size_t lines = 0, info = 0, broker = 0;
  for (std::size_t at = output.find("\n    [", heading); at != std::string::npos && at < output.find("  replay:", heading);
       at = output.find("\n    [", at + 1)) {
    const double line_t = seconds_at(output, at + 6);
    const std::size_t eol = output.find('\n', at + 1);
    const std::string line = output.substr(at + 1, eol - at - 1);
    ++lines;
    EXPECT_GE(line_t, t - 2.0 - 1e-6) << line;
    EXPECT_LE(line_t, t + 1.0 + 1e-6) << line;
    info += line.find("] [info] ") != std::string::npos ? 1 : 0;
    broker += line.find("] [broker-a] ") != std::string::npos ? 1 : 0;
  }
  EXPECT_GT(lines, 0u) << output;
  EXPECT_LE(lines, 60u) << output;
  EXPECT_GT(info, 0u) << "info lines are shown though --log-level hid them\n" << output;
  EXPECT_GT(broker, 0u) << output;
}

// A scenario that loses acknowledged messages (an ASYNC_FLUSH broker without a slave powered off
// under load, the loss judged strictly): mqsim run says FAILED with the first violation, prints the
// command that replays the seed, saves the history, and exits 1; mqsim check on that history fails
// the same way. Under FAILED it shows the nodes' log lines around the first violation, at info
// and above, whatever --log-level printed.
TEST(MqsimRun, AFailedSeedSaysWhyPrintsItsReplayAndSavesItsHistory) {
  const std::string file = scratch_dir() + "lossy.toml";
  {
    std::ofstream out(file);
    out << R"(name = "lossy"
story = "an ASYNC_FLUSH broker without a slave loses power under load"
[[brokers]]
name = "broker-a"
flush = "ASYNC_FLUSH"
[[topics]]
name = "T"
queues = 2
[[producers]]
node = "producer-0"
rate = 100
duration = "20s"
[[consumers]]
node = "consumer-0"
group = "readers"
consume_from = "CONSUME_FROM_FIRST_OFFSET"
[[faults]]
at = "10250ms"
action = "power_off"
target = "broker-a"
duration = "2s"
[run]
length = "30s"
[liveness]
bound = "1m"
require = ["brokers_running", "producers_done"]
[checks]
lost = "strict"
)";
  }
  const std::string history = scratch_dir() + "mqsim-lossy-seed1.json";
  const Ran r = mqsim("run " + file + " --seed 1");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("lost-acked: FAIL"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("FAILED: lost-acked"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("replay: build/bin/mqsim run " + file + " --seed 1"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("0 passed, 1 failed"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("history: mqsim-lossy-seed1.json"), std::string::npos) << r.output;
  const Ran c = mqsim("check " + history);
  EXPECT_EQ(c.exit_code, 1) << c.output;
  EXPECT_NE(c.output.find("lost-acked: FAIL"), std::string::npos) << c.output;
  expect_node_logs_near_the_violation(r.output);

  // Over several seeds, the failed checks are summed up: how many seeds each failed, and the
  // replay of the first.
  const Ran two = mqsim("run " + file + " --seeds 1..2 --log-level off");
  EXPECT_EQ(two.exit_code, 1) << two.output;
  EXPECT_NE(two.output.find("failed checks:\n  lost-acked: 2 seeds (first: build/bin/mqsim run " + file + " --seed 1)"),
            std::string::npos)
      << two.output;

  // Nothing printed while it ran, the lines around the violation all the same.
  const Ran quiet = mqsim("run " + file + " --seed 1 --log-level off");
  EXPECT_EQ(quiet.exit_code, 1) << quiet.output;
  expect_node_logs_near_the_violation(quiet.output);
}

TEST(MqsimCheck, UsageAndHelp) {
  Ran r = mqsim("--help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.output.find("check HISTORY_FILE"), std::string::npos) << r.output;
  r = mqsim("check");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  r = mqsim("frobnicate");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  r = mqsim("check " + scratch_dir() + "no-such-history.json");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("not_found"), std::string::npos) << r.output;
}

// mqsim list --checkers / --faults show what the registries hold: every checker with the
// records it reads (a named check with its options), every fault action with the keys it takes.
TEST(MqsimList, CheckersAndFaultsComeFromTheRegistries) {
  Ran r = mqsim("list --checkers");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const check::CheckerSpec& c : check::checkers().all()) {
    EXPECT_NE(r.output.find(c.name + " "), std::string::npos) << c.name << "\n" << r.output;
    EXPECT_NE(r.output.find("reads: " + check::records_text(c.needs)), std::string::npos) << c.name;
    for (const OptionSpec& o : c.options) EXPECT_NE(r.output.find(std::string(o.name)), std::string::npos) << c.name << " " << o.name;
  }
  EXPECT_NE(r.output.find("named: [checks.failover]"), std::string::npos) << r.output;
  r = mqsim("list --faults");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const scenario::FaultActionSpec& a : scenario::fault_actions().all()) {
    EXPECT_NE(r.output.find(a.name + " "), std::string::npos) << a.name << "\n" << r.output;
    for (const OptionSpec& o : a.keys) EXPECT_NE(r.output.find(std::string(o.name)), std::string::npos) << a.name << " " << o.name;
  }
  EXPECT_NE(r.output.find("takes: target, peers, duration, latency"), std::string::npos) << "clog\n" << r.output;
  EXPECT_EQ(mqsim("list --frobnicate").exit_code, 2);
}

// A run of a scenario with offsets_monotonic = false, a lite pull and a broadcast consumer: the
// history records every consumer, the brokers' committed offsets and the setting; mqsim check
// re-judges a planted step back of a committed offset by it (counted), and fails it once the
// setting is true.
TEST(MqsimRun, CommittedOffsetsAndTheirSettingReachTheHistoryAndMqsimCheck) {
  const std::string file = scratch_dir() + "offsets.toml";
  {
    std::ofstream out(file);
    out << R"(name = "offsets"
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
node = "puller-0"
group = "pullers"
kind = "lite_pull"
consume_from = "CONSUME_FROM_FIRST_OFFSET"
[[consumers]]
node = "watcher-0"
group = "watchers"
model = "BROADCASTING"
consume_from = "CONSUME_FROM_FIRST_OFFSET"
[run]
length = "20s"
[checks]
offsets_monotonic = false
)";
  }
  const std::string saved = scratch_dir() + "offsets-run.json";
  const Ran r = mqsim("run " + file + " --seed 2 --history " + saved);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("committed-offsets: PASS"), std::string::npos) << r.output;
  Result<History> h = sim::io::load_history_file(saved);
  ASSERT_TRUE(h.ok()) << h.error().to_string();
  EXPECT_FALSE(h->settings.offsets_monotonic);
  ASSERT_EQ(h->consumers.size(), 2u);
  EXPECT_TRUE(h->consumers.at("watcher-0").broadcast);
  EXPECT_EQ(h->consumers.at("puller-0").kind, "lite-pull");
  EXPECT_EQ(h->consumed_by("pullers").size(), 200u);
  EXPECT_EQ(h->consumed_by("watchers").size(), 200u);
  // The lite pull group's committed offsets, as broker-a held them: 200 messages over 2 queues.
  std::int64_t committed = 0;
  for (const sim::CommitRecord& c : h->commits) {
    if (c.group == "pullers" && c.broker == "broker-a") committed = std::max(committed, c.offset.value());
  }
  EXPECT_GE(committed, 90) << "the last auto commit of a queue that got about 100 messages";
  // Planted, long after the run's events: a committed offset moves on, then back to 0.
  History planted = *h;
  sim::CommitRecord on = planted.commits.back();
  on.at = on.at + std::chrono::seconds(100);
  on.offset = on.offset + 1;
  sim::CommitRecord back = on;
  back.at = on.at + std::chrono::seconds(1);
  back.offset = QueueOffset(0);
  planted.commits.push_back(on);
  planted.commits.push_back(back);
  const std::string path = scratch_dir() + "offsets-planted.json";
  ASSERT_TRUE(sim::io::save_history_file(path, planted).ok());
  const Ran tolerant = mqsim("check " + path);
  EXPECT_EQ(tolerant.exit_code, 0) << tolerant.output;
  EXPECT_NE(tolerant.output.find("backward_unexplained=1"), std::string::npos) << tolerant.output;
  planted.settings.offsets_monotonic = true;
  ASSERT_TRUE(sim::io::save_history_file(path, planted).ok());
  const Ran strict = mqsim("check " + path);
  EXPECT_EQ(strict.exit_code, 1) << strict.output;
  EXPECT_NE(strict.output.find("committed-offsets: FAIL"), std::string::npos) << strict.output;
}

}  // namespace
}  // namespace ferry::sim::cluster
