// mqbench against a real mqnamesrv and mqbroker: a 2-second async produce run and a 2-second
// consume run from the first offset; both summaries must show messages and no error, and the
// consumer must not receive more than was sent. Counted runs (--messages) with batches, several
// connections and --json, whose counts must match exactly; an e2e run at a --rate that must
// receive every message it sent. A short hostile run. Also --help and bad flags. No figure of
// speed is asserted.
#include <gtest/gtest.h>

#include <regex>

#include "tests/daemons/daemon_process.h"

namespace ferry::daemons_test {
namespace {

using namespace std::chrono_literals;

std::string mqbench_path() { return FERRY_MQBENCH_PATH; }

// The number after `label` (e.g. "sent ok:") in a summary, or -1.
long long summary_number(const std::string& output, const std::string& label) {
  std::smatch m;
  if (!std::regex_search(output, m, std::regex(label + R"(\s+(\d+))"))) return -1;
  return std::stoll(m[1].str());
}

// The JSON object mqbench --json printed (the one line starting with {"sub":), or "".
std::string json_line(const std::string& output) {
  std::smatch m;
  if (!std::regex_search(output, m, std::regex(R"((^|\n)(\{"sub":[^\n]*\}))"))) return "";
  return m[2].str();
}

// The integer after "key": in `json` (the first occurrence after `after`, when given), or -1.
long long json_number(const std::string& json, const std::string& key, const std::string& after = "") {
  std::size_t from = 0;
  if (!after.empty()) {
    from = json.find("\"" + after + "\":");
    if (from == std::string::npos) return -1;
  }
  std::smatch m;
  const std::string tail = json.substr(from);
  if (!std::regex_search(tail, m, std::regex("\"" + key + R"(":(\d+))"))) return -1;
  return std::stoll(m[1].str());
}

class MqbenchTest : public ::testing::Test {
 protected:
  RunResult bench(std::vector<std::string> args) {
    const std::string out = dir_ / ("mqbench-" + std::to_string(++runs_) + ".out");
    RunResult r = run_to_exit(mqbench_path(), args, out, 60s);
    std::string line;
    for (const auto& a : args) line += " " + a;
    r.output = "$ mqbench" + line + "\n" + r.output;
    return r;
  }

  TempDir dir_;
  LocalCluster cluster_{dir_};
  int runs_ = 0;
};

TEST_F(MqbenchTest, ProduceThenConsumeShowMessagesAndNoErrors) {
  ASSERT_EQ(cluster_.start_namesrv(), "");
  ASSERT_EQ(cluster_.start_broker(), "");
  RunResult p = bench({"produce", "-n", cluster_.namesrv_addr(), "-t", "BenchT", "--create-topic", "-q", "4", "-s", "256",
                       "-w", "16", "-m", "async", "-d", "2"});
  ASSERT_EQ(p.status, 0) << p.output;
  const long long sent = summary_number(p.output, "sent ok:");
  EXPECT_GT(sent, 0) << p.output;
  EXPECT_EQ(summary_number(p.output, "errors:"), 0) << p.output;
  EXPECT_NE(p.output.find("[   1s]"), std::string::npos) << p.output;  // a per-second line
  EXPECT_NE(p.output.find("latency ms:"), std::string::npos) << p.output;

  RunResult c = bench({"consume", "-n", cluster_.namesrv_addr(), "-t", "BenchT", "-g", "BenchG", "-f", "first", "-d", "2"});
  ASSERT_EQ(c.status, 0) << c.output;
  const long long received = summary_number(c.output, "received:");
  EXPECT_GT(received, 0) << c.output;
  EXPECT_LE(received, sent) << c.output;  // a fresh group: nothing twice, nothing invented
  EXPECT_EQ(summary_number(c.output, "errors:"), 0) << c.output;
  EXPECT_NE(c.output.find("(0 not from mqbench, 0 redelivered)"), std::string::npos) << c.output;
}

TEST_F(MqbenchTest, SyncAndOnewayModesRun) {
  ASSERT_EQ(cluster_.start_namesrv(), "");
  ASSERT_EQ(cluster_.start_broker("flushDiskType=SYNC_FLUSH\n"), "");
  for (const char* mode : {"sync", "oneway"}) {
    RunResult p = bench({"produce", "-n", cluster_.namesrv_addr(), "-t", "BenchT", "-s", "128", "-w", "4", "-p", "2", "-m",
                         mode, "-d", "1"});
    ASSERT_EQ(p.status, 0) << p.output;
    EXPECT_GT(summary_number(p.output, "sent ok:"), 0) << p.output;
    EXPECT_EQ(summary_number(p.output, "errors:"), 0) << p.output;
  }
}

// Counted runs: every message is accounted for, whatever the batch, the mode or the connections.
TEST_F(MqbenchTest, CountedBatchesOverSeveralConnectionsReportExactCountsAsJson) {
  ASSERT_EQ(cluster_.start_namesrv(), "");
  ASSERT_EQ(cluster_.start_broker(), "");
  RunResult p = bench({"produce", "-n", cluster_.namesrv_addr(), "-t", "BatchT", "--create-topic", "-q", "4", "-s", "200",
                       "--messages", "1000", "--batch", "16", "-m", "async", "-w", "4", "--json"});
  ASSERT_EQ(p.status, 0) << p.output;
  std::string j = json_line(p.output);
  ASSERT_NE(j, "") << p.output;
  EXPECT_EQ(json_number(j, "sent_ok"), 1000) << j;  // 62 batches of 16 and one of 8
  EXPECT_EQ(json_number(j, "errors"), 0) << j;
  EXPECT_EQ(json_number(j, "batch"), 16) << j;
  EXPECT_EQ(json_number(j, "n", "latency_ms"), 1000) << j;  // one latency per message

  p = bench({"produce", "-n", cluster_.namesrv_addr(), "-t", "BatchT", "-s", "200", "--messages", "500", "--batch", "7",
             "-m", "sync", "-w", "2", "--connections", "3", "--json"});
  ASSERT_EQ(p.status, 0) << p.output;
  j = json_line(p.output);
  EXPECT_EQ(json_number(j, "sent_ok"), 500) << p.output;
  EXPECT_EQ(json_number(j, "producers"), 3) << j;

  RunResult c = bench({"consume", "-n", cluster_.namesrv_addr(), "-t", "BatchT", "-g", "BatchG", "-f", "first",
                       "--messages", "1500", "-d", "50", "--json"});
  ASSERT_EQ(c.status, 0) << c.output;
  j = json_line(c.output);
  EXPECT_EQ(json_number(j, "received"), 1500) << c.output;
  EXPECT_EQ(json_number(j, "foreign"), 0) << j;
  EXPECT_EQ(json_number(j, "errors"), 0) << j;
  EXPECT_EQ(json_number(j, "n", "e2e_ms"), 1500) << j;
}

// Transactions: every committed one reaches a consumer, once, and nothing else does.
TEST_F(MqbenchTest, TransactionModeCommitsEveryMessageItCounts) {
  ASSERT_EQ(cluster_.start_namesrv(), "");
  ASSERT_EQ(cluster_.start_broker(), "");
  RunResult p = bench({"produce", "-n", cluster_.namesrv_addr(), "-t", "TxBenchT", "--create-topic", "-q", "4", "-s", "200",
                       "--messages", "600", "-m", "transaction", "-w", "8", "--json"});
  ASSERT_EQ(p.status, 0) << p.output;
  std::string j = json_line(p.output);
  EXPECT_EQ(json_number(j, "sent_ok"), 600) << p.output;
  EXPECT_EQ(json_number(j, "errors"), 0) << j;
  EXPECT_NE(j.find("\"mode\":\"transaction\""), std::string::npos) << j;
  RunResult c = bench({"consume", "-n", cluster_.namesrv_addr(), "-t", "TxBenchT", "-g", "TxBenchG", "-f", "first",
                       "--messages", "600", "-d", "30", "--json"});
  ASSERT_EQ(c.status, 0) << c.output;
  j = json_line(c.output);
  EXPECT_EQ(json_number(j, "received"), 600) << c.output;
  EXPECT_EQ(json_number(j, "foreign"), 0) << j;
  EXPECT_EQ(json_number(j, "redelivered"), 0) << j;
  RunResult batch = bench({"produce", "-n", cluster_.namesrv_addr(), "-t", "TxBenchT", "-m", "transaction", "--batch", "4"});
  EXPECT_EQ(batch.status, 2) << batch.output;
  EXPECT_NE(batch.output.find("not with --mode transaction"), std::string::npos) << batch.output;
}

// e2e at a rate: every message sent ok is received once, and each has an end-to-end latency.
TEST_F(MqbenchTest, E2eAtARateReceivesEveryMessageItSent) {
  ASSERT_EQ(cluster_.start_namesrv(), "");
  ASSERT_EQ(cluster_.start_broker(), "");
  RunResult r = bench({"e2e", "-n", cluster_.namesrv_addr(), "-t", "E2eT", "--create-topic", "-q", "4", "-s", "128",
                       "--rate", "400", "--messages", "600", "--json"});
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string j = json_line(r.output);
  ASSERT_NE(j, "") << r.output;
  EXPECT_EQ(json_number(j, "sent_ok", "produce"), 600) << j;
  EXPECT_EQ(json_number(j, "received", "consume"), 600) << j;
  EXPECT_EQ(json_number(j, "n", "e2e_ms"), 600) << j;
  EXPECT_EQ(json_number(j, "missing"), 0) << j;
  EXPECT_EQ(json_number(j, "rate_target"), 400) << j;
  EXPECT_NE(r.output.find("--- mqbench e2e ---"), std::string::npos) << r.output;  // the human part, on stderr
}

// mqbench hostile against a real broker, found through the NameServer: it completes and reports
// every case beside the baseline (its figures are for docs/benchmarks.md; none is asserted here).
TEST_F(MqbenchTest, HostileReportsEveryCaseAgainstTheBaseline) {
  ASSERT_EQ(cluster_.start_namesrv(), "");
  ASSERT_EQ(cluster_.start_broker(), "");
  RunResult r = bench({"hostile", "-n", cluster_.namesrv_addr(), "-m", "2000", "--slow-pulls", "200", "--baseline-s", "1",
                       "--timeout-s", "30", "--probe-timeout-s", "10", "--pid", std::to_string(cluster_.broker()->pid())});
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* line : {"quiet baseline", "(a) properties", "(b) filter scan, 2000 msgs", "(c) view inside a record",
                           "(c) view at offset 2^62", "(d) slow reader, 200 pulls", "RssAnon: before", "done"}) {
    EXPECT_NE(r.output.find(line), std::string::npos) << line << " in\n" << r.output;
  }
  std::size_t outcomes = 0;
  for (std::size_t at = r.output.find("hostile: "); at != std::string::npos; at = r.output.find("hostile: ", at + 1)) {
    ++outcomes;
  }
  EXPECT_EQ(outcomes, 5u) << r.output;
  // (a)'s 1 MiB of properties make a header past the 256 KiB any header may have: the broker
  // closes the connection from the header's length, before reading it.
  EXPECT_NE(r.output.find("hostile: connection ended after"), std::string::npos) << "(a) is refused\n" << r.output;
}

TEST_F(MqbenchTest, HelpAndBadFlags) {
  RunResult r = bench({"--help"});
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("produce"), std::string::npos) << r.output;
  r = bench({"produce", "--help"});
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("--window N"), std::string::npos) << r.output;
  r = bench({"hostile", "--help"});
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("--slow-pulls N"), std::string::npos) << r.output;
  r = bench({"hostile", "-b", "127.0.0.1:1", "-c", "xyz"});
  EXPECT_EQ(r.status, 2) << r.output;
  // Nobody listening: the run fails with a message, it does not hang.
  r = bench({"hostile", "-b", "127.0.0.1:" + std::to_string(free_port())});
  EXPECT_EQ(r.status, 1) << r.output;
  r = bench({"consume", "--help"});
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("--from WHERE"), std::string::npos) << r.output;
  r = bench({"produce", "-t", "T", "-m", "fast"});
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("--mode: 'fast' is not one of sync, async, oneway, transaction"), std::string::npos) << r.output;
  r = bench({"produce", "-t", "T", "-s", "8"});
  EXPECT_EQ(r.status, 2) << r.output;
  r = bench({"consume", "-t", "T", "-f", "middle"});
  EXPECT_EQ(r.status, 2) << r.output;
  r = bench({"e2e", "--help"});
  EXPECT_EQ(r.status, 0) << r.output;
  for (const char* flag : {"--rate N", "--batch N", "--connections N", "--json", "--tail-s S"}) {
    EXPECT_NE(r.output.find(flag), std::string::npos) << flag << " in\n" << r.output;
  }
  r = bench({"produce", "-t", "T", "-m", "oneway", "--batch", "4"});
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("not with --mode oneway"), std::string::npos) << r.output;
  r = bench({"produce", "-t", "T", "-p", "2", "--connections", "2"});
  EXPECT_EQ(r.status, 2) << r.output;
  r = bench({"e2e", "-t", "T", "--rate", "0"});
  EXPECT_EQ(r.status, 2) << r.output;
  r = bench({"bogus"});
  EXPECT_EQ(r.status, 2) << r.output;
  // Nobody listening: the run fails with a message, it does not hang.
  r = bench({"produce", "-n", "127.0.0.1:" + std::to_string(free_port()), "-t", "T", "--create-topic", "-d", "1"});
  EXPECT_EQ(r.status, 1) << r.output;
}

}  // namespace
}  // namespace ferry::daemons_test
