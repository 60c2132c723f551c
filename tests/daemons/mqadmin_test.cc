// mqadmin against a real mqnamesrv and mqbroker on 127.0.0.1: create a topic, list and route it,
// send, consume, status, look messages up by offset msgId, key and queue offset, delete it; and
// the failures: an unreachable NameServer, an unknown subcommand, a missing flag, an unknown topic.
#include <gtest/gtest.h>

#include <memory>
#include <sstream>

#include "daemon_process.h"

namespace ferry::daemons_test {
namespace {

using namespace std::chrono_literals;

constexpr auto kReady = 15s;
constexpr auto kCommand = 30s;

std::string mqadmin_path() { return FERRY_MQADMIN_PATH; }

class MqadminTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ns_port_ = free_port();
    namesrv_ = std::make_unique<Child>(mqnamesrv_path(),
                                       std::vector<std::string>{"-p", std::to_string(ns_port_), "-d", dir_ / "ns"},
                                       dir_ / "namesrv.out");
    ASSERT_TRUE(wait_for_port(ns_port_, kReady)) << namesrv_->output();
    broker_port_ = free_port();
    const std::string conf = dir_ / "broker.conf";
    write_file(conf, "brokerClusterName=TestCluster\nbrokerName=broker-a\nbrokerId=0\nlistenPort=" +
                         std::to_string(broker_port_) + "\nstorePathRootDir=" + (dir_ / "store") +
                         "\nmappedFileSizeCommitLog=1048576\nmaxMessageSize=65536\n");
    broker_ = std::make_unique<Child>(mqbroker_path(), std::vector<std::string>{"-c", conf, "-n", ns_addr()},
                                      dir_ / "broker.out");
    ASSERT_TRUE(wait_for_port(broker_port_, kReady)) << broker_->output();
  }

  std::string ns_addr() const { return "127.0.0.1:" + std::to_string(ns_port_); }
  std::string broker_addr() const { return "127.0.0.1:" + std::to_string(broker_port_); }

  // Runs mqadmin with `args` (plus -n for this cluster unless `with_namesrv` is false).
  RunResult admin(std::vector<std::string> args, bool with_namesrv = true) {
    if (with_namesrv) args.insert(args.end(), {"-n", ns_addr()});
    const std::string out = dir_ / ("mqadmin-" + std::to_string(++runs_) + ".out");
    RunResult r = run_to_exit(mqadmin_path(), args, out, kCommand);
    std::string line;
    for (const auto& a : args) line += " " + a;
    r.output = "$ mqadmin" + line + "\n" + r.output;
    return r;
  }

  TempDir dir_;
  std::uint16_t ns_port_ = 0;
  std::uint16_t broker_port_ = 0;
  std::unique_ptr<Child> namesrv_;
  std::unique_ptr<Child> broker_;
  int runs_ = 0;
};

bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// The cells of the data rows (after the header) of a table printed by mqadmin.
std::vector<std::vector<std::string>> table_rows(const std::string& output, const std::string& header_start) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(output);
  bool in_table = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(header_start, 0) == 0) {
      in_table = true;
      continue;
    }
    if (!in_table) continue;
    if (line.empty()) break;
    std::istringstream cells(line);
    std::vector<std::string> row;
    for (std::string c; cells >> c;) row.push_back(c);
    rows.push_back(row);
  }
  return rows;
}

TEST_F(MqadminTest, TopicLifecycleSendConsumeAndQueries) {
  RunResult r = admin({"updateTopic", "-t", "AdminT", "-c", "TestCluster", "-r", "2", "-w", "2"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "success")) << r.output;

  r = admin({"topicList"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "\nAdminT\n")) << r.output;

  r = admin({"topicRoute", "-t", "AdminT"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, broker_addr())) << r.output;
  auto queues = table_rows(r.output, "#Broker");
  ASSERT_EQ(queues.size(), 1u) << r.output;
  EXPECT_EQ(queues[0], (std::vector<std::string>{"broker-a", "2", "2", "6", "0"})) << r.output;

  r = admin({"clusterList"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "TestCluster")) << r.output;

  r = admin({"sendMessage", "-t", "AdminT", "-p", "msg-{i}", "-k", "key-7 other", "-g", "TagX", "-c", "4"});
  ASSERT_EQ(r.status, 0) << r.output;
  auto sent = table_rows(r.output, "#MsgId");
  ASSERT_EQ(sent.size(), 4u) << r.output;
  for (const auto& row : sent) {
    ASSERT_EQ(row.size(), 6u) << r.output;
    EXPECT_EQ(row[2], "broker-a");
    EXPECT_EQ(row[5], "SEND_OK");
  }
  const std::string first_offset_id = sent[0][1];

  r = admin({"consumeMessage", "-t", "AdminT", "-c", "4", "--timeout", "10000"});
  ASSERT_EQ(r.status, 0) << r.output;
  for (int i = 0; i < 4; ++i) EXPECT_TRUE(contains(r.output, "msg-" + std::to_string(i))) << r.output;
  EXPECT_TRUE(contains(r.output, "Received 4 messages from topic AdminT")) << r.output;

  // Without -c: what the queues hold, then stop. Waiting for more than there is fails.
  r = admin({"consumeMessage", "-t", "AdminT"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "Received 4 messages")) << r.output;
  r = admin({"consumeMessage", "-t", "AdminT", "-c", "5", "--timeout", "300"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "received 4 of 5 messages")) << r.output;

  r = admin({"topicStatus", "-t", "AdminT"});
  ASSERT_EQ(r.status, 0) << r.output;
  auto status = table_rows(r.output, "#Broker");
  ASSERT_EQ(status.size(), 2u) << r.output;
  std::int64_t total = 0;
  for (const auto& row : status) {
    ASSERT_EQ(row.size(), 4u) << r.output;
    EXPECT_EQ(row[2], "0");
    total += std::stoll(row[3]);
  }
  EXPECT_EQ(total, 4) << r.output;

  r = admin({"queryMsgById", "-i", first_offset_id});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "msg-0")) << r.output;
  EXPECT_TRUE(contains(r.output, first_offset_id)) << r.output;

  r = admin({"queryMsgByKey", "-t", "AdminT", "-k", "key-7"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(table_rows(r.output, "#MsgId").size(), 4u) << r.output;
  r = admin({"queryMsgByKey", "-t", "AdminT", "-k", "no-such-key"});
  EXPECT_EQ(r.status, 1) << r.output;

  r = admin({"queryMsgByOffset", "-t", "AdminT", "-b", "broker-a", "-i", "0", "-o", "0"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "Body:")) << r.output;
  EXPECT_TRUE(contains(r.output, "TagX")) << r.output;

  r = admin({"consumerProgress", "-g", "G1", "-t", "AdminT"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(table_rows(r.output, "#Topic").size(), 2u) << r.output;

  r = admin({"deleteTopic", "-t", "AdminT", "-c", "TestCluster"});
  ASSERT_EQ(r.status, 0) << r.output;
  r = admin({"topicRoute", "-t", "AdminT"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "AdminT")) << r.output;
}

TEST_F(MqadminTest, FailuresExitNonZeroWithAClearMessage) {
  const std::string dead = "127.0.0.1:" + std::to_string(free_port());
  RunResult r = admin({"topicList", "-n", dead}, false);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(contains(r.output, dead)) << r.output;

  r = admin({"bogus"});
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "unknown subcommand 'bogus'")) << r.output;

  r = admin({"topicRoute"});
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "missing required flag -t (--topic)")) << r.output;

  r = admin({"updateTopic", "-t", "X", "-c", "TestCluster", "-r", "zero"});
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "--readQueueNums: 'zero' is not a number")) << r.output;

  r = admin({"topicStatus", "-t", "NoSuchTopic"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "NoSuchTopic")) << r.output;

  r = admin({"topicList", "-n", "not-an-address"}, false);
  EXPECT_EQ(r.status, 2) << r.output;

  r = admin({"--help"}, false);
  EXPECT_EQ(r.status, 0) << r.output;
  for (const char* sub : {"updateTopic", "deleteTopic", "topicList", "topicRoute", "topicStatus", "clusterList",
                          "consumerProgress", "queryMsgById", "queryMsgByKey", "queryMsgByOffset", "sendMessage",
                          "consumeMessage"}) {
    EXPECT_TRUE(contains(r.output, sub)) << sub << "\n" << r.output;
  }
  r = admin({"sendMessage", "--help"}, false);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "--body BODY")) << r.output;
}

}  // namespace
}  // namespace ferry::daemons_test
