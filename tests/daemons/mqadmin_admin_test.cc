// The admin requests RocketMQ's tools send, answered by a real mqbroker and mqnamesrv and driven
// through mqadmin's verbs: topicStatus (202), consumerConnection (203), producerConnection (204),
// consumerProgress (208), deleteSubGroup (207 with removeOffset), wipeWritePerm (205),
// addWritePerm (327) and statsAll (300, 315, 208). Online clients are mqbench consume / produce processes.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <thread>

#include "tests/daemons/daemon_process.h"
#include "tests/daemons/mqadmin_output.h"

namespace ferry::daemons_test {
namespace {

using namespace std::chrono_literals;

constexpr auto kCommand = 30s;
// How long a client process may take to show up at the broker: a producer heartbeats to a
// broker it learned of from a route at the next 30 s round.
constexpr auto kOnline = 45s;

bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

class MqadminAdminTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_EQ(cluster_.start_namesrv(), "");
    ASSERT_EQ(cluster_.start_broker(), "");
  }

  RunResult run(const std::string& exe, std::vector<std::string> args) {
    args.insert(args.end(), {"-n", cluster_.namesrv_addr()});
    const std::string out = dir_ / ("run-" + std::to_string(++runs_) + ".out");
    RunResult r = run_to_exit(exe, args, out, kCommand);
    std::string line;
    for (const auto& a : args) line += " " + a;
    r.output = "$ " + exe + line + "\n" + r.output;
    return r;
  }
  RunResult admin(std::vector<std::string> args) { return run(FERRY_MQADMIN_PATH, std::move(args)); }

  // Starts mqbench with `args` in the background (it dies with the test, see Child).
  std::unique_ptr<Child> bench(std::vector<std::string> args) {
    args.insert(args.end(), {"-n", cluster_.namesrv_addr()});
    return std::make_unique<Child>(FERRY_MQBENCH_PATH, args, dir_ / ("bench-" + std::to_string(++runs_) + ".out"));
  }

  // Runs `args` until it exits 0 or `limit` passes; the last result.
  RunResult admin_until_ok(const std::vector<std::string>& args, std::chrono::seconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    RunResult r = admin(args);
    while (r.status != 0 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(500ms);
      r = admin(args);
    }
    return r;
  }

  TempDir dir_;
  LocalCluster cluster_{dir_};
  int runs_ = 0;
};

TEST_F(MqadminAdminTest, ConnectionsStatsAndGroupDeletion) {
  RunResult r = admin({"updateTopic", "-t", "StatsT", "-c", "TestCluster", "-r", "2", "-w", "2"});
  ASSERT_EQ(r.status, 0) << r.output;
  r = admin({"sendMessage", "-t", "StatsT", "-p", "m-{i}", "-c", "4"});
  ASSERT_EQ(r.status, 0) << r.output;

  r = admin({"topicStatus", "-t", "StatsT"});  // 202
  ASSERT_EQ(r.status, 0) << r.output;
  auto rows = table_rows(r.output, "#Broker");
  ASSERT_EQ(rows.size(), 2u) << r.output;
  EXPECT_EQ(std::stoll(rows[0][3]) + std::stoll(rows[1][3]), 4) << r.output;

  // Nobody online yet.
  r = admin({"consumerConnection", "-g", "SG"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "the consumer group[SG] not online")) << r.output;
  r = admin({"producerConnection", "-g", "PGX", "-t", "StatsT"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "the producer group[PGX] not exist")) << r.output;

  {
    auto consumer = bench({"consume", "-t", "StatsT", "-g", "SG", "-f", "first", "-d", "120"});
    r = admin_until_ok({"consumerConnection", "-g", "SG"}, kOnline);  // 203
    ASSERT_EQ(r.status, 0) << r.output << consumer->output();
    auto members = table_rows(r.output, "#No");
    ASSERT_EQ(members.size(), 1u) << r.output;
    ASSERT_EQ(members[0].size(), 5u) << r.output;
    EXPECT_EQ(members[0][0], "#000001") << r.output;
    EXPECT_TRUE(contains(members[0][2], "127.0.0.1:")) << r.output;
    EXPECT_EQ(members[0][3], "JAVA") << r.output;
    EXPECT_TRUE(contains(r.output, "Topic: StatsT")) << r.output;
    EXPECT_TRUE(contains(r.output, "MessageModel: CLUSTERING")) << r.output;

    auto producer = bench({"produce", "-t", "StatsT", "-g", "PGX", "-m", "sync", "-w", "1", "-s", "32", "-d", "120"});
    r = admin_until_ok({"producerConnection", "-g", "PGX", "-t", "StatsT"}, kOnline);  // 204
    ASSERT_EQ(r.status, 0) << r.output << producer->output();
    auto producers = table_rows(r.output, "#No");
    ASSERT_EQ(producers.size(), 1u) << r.output;
    EXPECT_EQ(producers[0][0], "#0001") << r.output;
    EXPECT_EQ(producers[0][3], "JAVA") << r.output;
  }  // both processes are killed here; the broker drops their registrations with the connections

  r = admin_until_ok({"consumerProgress", "-g", "SG", "-t", "StatsT"}, 10s);  // 208
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(table_rows(r.output, "#Topic").size(), 2u) << r.output;
  EXPECT_TRUE(contains(r.output, "Consume TPS: ")) << r.output;

  // The consumer is gone: not online any more (its connection closed).
  r = admin({"consumerConnection", "-g", "SG"});
  EXPECT_EQ(r.status, 1) << r.output;

  // 207 with removeOffset: the offsets go, so the whole topic is behind again. mqbench produce
  // sent more meanwhile; the diff is the broker offsets' sum.
  r = admin({"deleteSubGroup", "-g", "SG", "-b", cluster_.broker_addr(), "-r", "true"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "delete subscription group [SG] from broker [" + cluster_.broker_addr())) << r.output;
  r = admin({"consumerProgress", "-g", "SG", "-t", "StatsT"});
  ASSERT_EQ(r.status, 0) << r.output;
  long long broker_sum = 0;
  long long consumer_sum = 0;
  for (const auto& row : table_rows(r.output, "#Topic")) {
    ASSERT_GE(row.size(), 6u) << r.output;
    broker_sum += std::stoll(row[3]);
    consumer_sum += std::stoll(row[4]);
  }
  EXPECT_GE(broker_sum, 4) << r.output;
  EXPECT_EQ(consumer_sum, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "Diff Total: " + std::to_string(broker_sum))) << r.output;

  r = admin({"deleteSubGroup", "-g", "SG"});
  EXPECT_EQ(r.status, 2) << r.output;  // neither -b nor -c
}

// statsAll's row of `topic` and `group` (its whitespace-separated cells), or an empty row.
std::vector<std::string> stats_row(const std::string& output, const std::string& topic, const std::string& group) {
  for (auto& row : table_rows(output, "#Topic")) {
    if (row.size() >= 2 && row[0] == topic && row[1] == group) return row;
  }
  return {};
}

TEST_F(MqadminAdminTest, StatsAllShowsEachTopicsTrafficPerConsumerGroup) {
  RunResult r = admin({"updateTopic", "-t", "FlowT", "-c", "TestCluster", "-r", "1", "-w", "1"});
  ASSERT_EQ(r.status, 0) << r.output;
  r = admin({"updateTopic", "-t", "QuietT", "-c", "TestCluster", "-r", "1", "-w", "1"});
  ASSERT_EQ(r.status, 0) << r.output;
  r = admin({"sendMessage", "-t", "FlowT", "-p", "m-{i}", "-c", "6"});
  ASSERT_EQ(r.status, 0) << r.output;

  // Sent, nobody consuming yet: one NO_CONSUMER row with the 6 messages in.
  r = admin({"statsAll", "-t", "FlowT"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "#Topic")) << r.output;
  EXPECT_TRUE(contains(r.output, "#OutMsg24Hour")) << r.output;
  auto rows = table_rows(r.output, "#Topic");
  ASSERT_EQ(rows.size(), 1u) << r.output;
  // Cells: topic, accumulation 0, InTPS, InMsg24Hour, NO_CONSUMER (the blank group and OutTPS
  // cells print as spaces).
  ASSERT_EQ(rows[0].size(), 5u) << r.output;
  EXPECT_EQ(rows[0][0], "FlowT") << r.output;
  EXPECT_EQ(rows[0][3], "6") << r.output;
  EXPECT_EQ(rows[0][4], "NO_CONSUMER") << r.output;

  {
    // A consumer group reads all six and commits its offsets (every 5 s).
    auto consumer = bench({"consume", "-t", "FlowT", "-g", "FlowG", "-f", "first", "-d", "120"});
    const auto deadline = std::chrono::steady_clock::now() + kOnline;
    std::vector<std::string> row;
    for (;;) {
      r = admin({"statsAll", "-t", "FlowT"});
      ASSERT_EQ(r.status, 0) << r.output;
      row = stats_row(r.output, "FlowT", "FlowG");
      if ((row.size() == 7 && row[6] == "6" && row[2] == "0") || std::chrono::steady_clock::now() > deadline) break;
      std::this_thread::sleep_for(1s);
    }
    // #Topic #Consumer Group #Accumulation #InTPS #OutTPS #InMsg24Hour #OutMsg24Hour
    ASSERT_EQ(row.size(), 7u) << r.output << consumer->output();
    EXPECT_EQ(row[2], "0") << r.output;  // nothing left to consume
    EXPECT_EQ(row[5], "6") << r.output;
    EXPECT_EQ(row[6], "6") << r.output;

    // The same progress from the broker's side (317): FlowG read all six of FlowT's queue 0.
    r = admin({"brokerConsumeStats", "-b", cluster_.broker_addr()});
    ASSERT_EQ(r.status, 0) << r.output;
    std::vector<std::string> progress;
    for (const auto& cells : table_rows(r.output, "#Topic")) {
      if (cells.size() > 1 && cells[0] == "FlowT" && cells[1] == "FlowG") progress = cells;
    }
    // #Topic #Group #Broker Name #QID #Broker Offset #Consumer Offset #Diff #LastTime
    ASSERT_EQ(progress.size(), 8u) << r.output;
    EXPECT_EQ(progress[2], "broker-a") << r.output;
    EXPECT_EQ(progress[3], "0") << r.output;
    EXPECT_EQ(progress[4], "6") << r.output;
    EXPECT_EQ(progress[5], "6") << r.output;
    EXPECT_EQ(progress[6], "0") << r.output;
    EXPECT_NE(progress[7], "-") << r.output;  // when the last message read was stored
    EXPECT_TRUE(contains(r.output, "Diff Total: ")) << r.output;
    // -l 1: only queues still behind by at least one message; FlowG is not.
    r = admin({"brokerConsumeStats", "-b", cluster_.broker_addr(), "-l", "1"});
    ASSERT_EQ(r.status, 0) << r.output;
    for (const auto& cells : table_rows(r.output, "#Topic")) EXPECT_NE(cells.at(0), "FlowT") << r.output;
  }

  // All topics: QuietT has had no traffic; -a leaves it out, and keeps FlowT.
  r = admin({"statsAll"});
  ASSERT_EQ(r.status, 0) << r.output;
  bool quiet_listed = false;
  for (const auto& row : table_rows(r.output, "#Topic")) quiet_listed = quiet_listed || row.at(0) == "QuietT";
  EXPECT_TRUE(quiet_listed) << r.output;
  EXPECT_EQ(stats_row(r.output, "FlowT", "FlowG").size(), 7u) << r.output;
  r = admin({"statsAll", "-a"});
  ASSERT_EQ(r.status, 0) << r.output;
  for (const auto& row : table_rows(r.output, "#Topic")) EXPECT_NE(row.at(0), "QuietT") << r.output;
  EXPECT_EQ(stats_row(r.output, "FlowT", "FlowG").size(), 7u) << r.output;
}

TEST_F(MqadminAdminTest, WipeAndAddWritePermOnTheNameServer) {
  RunResult r = admin({"updateTopic", "-t", "PermT", "-c", "TestCluster", "-r", "2", "-w", "2"});
  ASSERT_EQ(r.status, 0) << r.output;
  r = admin({"wipeWritePerm", "-b", "broker-a"});  // 205
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "wipe write perm of broker[broker-a] in name server[" + cluster_.namesrv_addr() + "] OK, "))
      << r.output;
  r = admin({"topicRoute", "-t", "PermT"});
  ASSERT_EQ(r.status, 0) << r.output;
  auto queues = table_rows(r.output, "#Broker");
  ASSERT_EQ(queues.size(), 1u) << r.output;
  EXPECT_EQ(queues[0][3], "4") << r.output;  // read only
  r = admin({"sendMessage", "-t", "PermT", "-p", "x"});
  EXPECT_EQ(r.status, 1) << r.output;  // no writable queue

  r = admin({"addWritePerm", "-b", "broker-a"});  // 327
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "add write perm of broker[broker-a] in name server[" + cluster_.namesrv_addr() + "] OK, "))
      << r.output;
  r = admin({"topicRoute", "-t", "PermT"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(table_rows(r.output, "#Broker").at(0).at(3), "6") << r.output;
  r = admin({"sendMessage", "-t", "PermT", "-p", "x"});
  EXPECT_EQ(r.status, 0) << r.output;

  r = admin({"wipeWritePerm", "-b", "no-such-broker"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "OK, 0")) << r.output;
}

TEST_F(MqadminAdminTest, BrokerConfigChangesAtRunTimeAndInBrokerConf) {
  RunResult r = admin({"getBrokerConfig", "-b", cluster_.broker_addr()});  // 26
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "============" + cluster_.broker_addr() + "============")) << r.output;
  EXPECT_TRUE(contains(r.output, "brokerName")) << r.output;
  EXPECT_TRUE(contains(r.output, "=  broker-a\n")) << r.output;

  r = admin({"updateTopic", "-t", "ConfT", "-c", "TestCluster", "-r", "1", "-w", "1"});
  ASSERT_EQ(r.status, 0) << r.output;
  r = admin({"updateBrokerConfig", "-b", cluster_.broker_addr(), "-k", "brokerPermission", "-v", "4"});  // 25
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "update broker config success, " + cluster_.broker_addr())) << r.output;
  // Applied at once: the broker refuses writes; saved into the broker.conf it started from.
  r = admin({"sendMessage", "-t", "ConfT", "-p", "x"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(contains(read_file(dir_ / "broker.conf"), "\nbrokerPermission=4\n")) << read_file(dir_ / "broker.conf");
  EXPECT_TRUE(contains(read_file(dir_ / "broker.conf"), "brokerName=broker-a\n"));  // the rest of the file stays
  r = admin({"getBrokerConfig", "-c", "TestCluster"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "brokerPermission")) << r.output;
  EXPECT_TRUE(contains(r.output, "=  4\n")) << r.output;

  r = admin({"updateBrokerConfig", "-b", cluster_.broker_addr(), "-k", "brokerPermission", "-v", "6"});
  ASSERT_EQ(r.status, 0) << r.output;
  r = admin({"sendMessage", "-t", "ConfT", "-p", "x"});
  EXPECT_EQ(r.status, 0) << r.output;

  // Refusals name the key; nothing changes.
  r = admin({"updateBrokerConfig", "-b", cluster_.broker_addr(), "-k", "listenPort", "-v", "1"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "key 'listenPort' cannot change while the broker runs")) << r.output;
  r = admin({"updateBrokerConfig", "-b", cluster_.broker_addr(), "-k", "noSuchKey", "-v", "1"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "key 'noSuchKey' is not a broker setting Ferry knows")) << r.output;
  r = admin({"updateBrokerConfig", "-b", cluster_.broker_addr(), "-k", "brokerPermission", "-v", "9"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "brokerPermission: \"9\" is not 2, 4 or 6")) << r.output;
  EXPECT_TRUE(contains(read_file(dir_ / "broker.conf"), "\nbrokerPermission=6\n"));
  EXPECT_FALSE(contains(read_file(dir_ / "broker.conf"), "noSuchKey"));
}

TEST_F(MqadminAdminTest, NamesrvConfigAndUnsupportedKeys) {
  RunResult r = admin({"getNamesrvConfig"});  // 319
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "============" + cluster_.namesrv_addr() + "============")) << r.output;
  EXPECT_TRUE(contains(r.output, "orderMessageEnable")) << r.output;
  EXPECT_TRUE(contains(r.output, "=  false\n")) << r.output;
  r = admin({"updateNamesrvConfig", "-k", "orderMessageEnable", "-v", "true"});  // 318
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "update name server config success!" + cluster_.namesrv_addr())) << r.output;
  r = admin({"getNamesrvConfig"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_FALSE(contains(r.output, "=  false\n")) << r.output;
  r = admin({"updateNamesrvConfig", "-k", "listenPort", "-v", "1"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "key 'listenPort' cannot change while the NameServer runs")) << r.output;
}

}  // namespace
}  // namespace ferry::daemons_test
