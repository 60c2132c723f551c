// mqadmin against a real mqnamesrv and mqbroker on 127.0.0.1: create a topic, list and route it,
// send, consume, status, look messages up by offset msgId, key and queue offset, delete it; the
// broker's runtime status, a consumer group's settings, its offsets reset by time; and the
// failures: an unreachable NameServer or broker, an unknown subcommand, a missing or bad flag, an
// unknown topic.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <sstream>
#include <thread>

#include "tests/daemons/daemon_process.h"
#include "tests/daemons/mqadmin_output.h"

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
    broker_port_ = free_broker_port();
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

// Message trace: what a Java client with enableMsgTrace writes to RMQ_SYS_TRACE_TOPIC (a Pub and
// a SubAfter context of one message, keyed by its msgId; the layout of RocketMQ 4.9's
// TraceDataEncoder, written by hand), found and printed by queryMsgTraceById.
TEST_F(MqadminTest, QueryMsgTraceByIdPrintsTheTraceAClientWrote) {
  const std::string id = "7F00000100002A9F0000ABCD";
  const std::string pub = "Pub\x01" "1733480000123\x01" "DefaultRegion\x01" "OrderProducers\x01" "Orders\x01" + id +
                          "\x01" "TagA\x01" "\x01" "10.0.0.5:10911\x01" "512\x01" "3\x01" "0\x01" "0A00000500002A9F\x01" "true\x02";
  const std::string sub_after = "SubAfter\x01" "req-1\x01" + id + "\x01" "12\x01" "false\x01" "\x01" "0\x01" "1733480000212\x01"
                                "OrderReaders\x02";
  RunResult r = admin({"sendMessage", "-t", "RMQ_SYS_TRACE_TOPIC", "-p", pub + sub_after, "-k", id});
  ASSERT_EQ(r.status, 0) << r.output;
  r = admin({"queryMsgTraceById", "-i", id});
  ASSERT_EQ(r.status, 0) << r.output;
  const std::vector<std::vector<std::string>> pubs = table_rows(r.output, "#Type      #ProducerGroup");
  ASSERT_EQ(pubs.size(), 1u) << r.output;
  EXPECT_EQ(pubs[0].front(), "Pub") << r.output;
  EXPECT_EQ(pubs[0][1], "OrderProducers") << r.output;
  EXPECT_EQ(pubs[0][pubs[0].size() - 2], "3ms") << r.output;
  EXPECT_EQ(pubs[0].back(), "success") << r.output;
  const std::vector<std::vector<std::string>> subs = table_rows(r.output, "#Type      #ConsumerGroup");
  ASSERT_EQ(subs.size(), 1u) << r.output;
  EXPECT_EQ(subs[0].front(), "Sub") << r.output;
  EXPECT_EQ(subs[0][1], "OrderReaders") << r.output;
  EXPECT_EQ(subs[0][subs[0].size() - 2], "12ms") << r.output;
  EXPECT_EQ(subs[0].back(), "failed") << r.output;
  r = admin({"queryMsgTraceById", "-i", "NOPE"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "no message of topic 'RMQ_SYS_TRACE_TOPIC' with key 'NOPE'")) << r.output;
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
                          "consumerProgress", "queryMsgById", "queryMsgByKey", "queryMsgByOffset", "queryMsgTraceById", "sendMessage",
                          "consumeMessage", "brokerStatus", "updateSubGroup", "resetOffsetByTime", "haStatus",
                          "promoteSlave", "consumerStatus", "cleanExpiredCQ", "printMsg"}) {
    EXPECT_TRUE(contains(r.output, sub)) << sub << "\n" << r.output;
  }
  r = admin({"sendMessage", "--help"}, false);
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "--body BODY")) << r.output;
}

// The sum of column `col` over the rows of a table.
long long column_sum(const std::vector<std::vector<std::string>>& rows, std::size_t col) {
  long long sum = 0;
  for (const auto& row : rows) sum += row.size() > col ? std::stoll(row[col]) : -1'000'000;
  return sum;
}

TEST_F(MqadminTest, BrokerStatusShowsTrafficAndStore) {
  RunResult r = admin({"updateTopic", "-t", "StatusT", "-c", "TestCluster", "-r", "2", "-w", "2"});
  ASSERT_EQ(r.status, 0) << r.output;
  ASSERT_EQ(admin({"sendMessage", "-t", "StatusT", "-p", "m{i}", "-c", "6"}).status, 0);
  r = admin({"consumeMessage", "-t", "StatusT", "-c", "6"});
  ASSERT_EQ(r.status, 0) << r.output;

  r = admin({"brokerStatus"});
  ASSERT_EQ(r.status, 0) << r.output;
  auto rows = table_rows(r.output, "#Broker");
  ASSERT_EQ(rows.size(), 1u) << r.output;
  ASSERT_EQ(rows[0].size(), 14u) << r.output;
  EXPECT_EQ(rows[0][0], "broker-a");
  EXPECT_EQ(rows[0][1], "0");
  EXPECT_EQ(rows[0][2], broker_addr());
  EXPECT_EQ(rows[0][5], "6") << r.output;  // MsgPut
  EXPECT_EQ(rows[0][6], "6") << r.output;  // MsgGet
  EXPECT_EQ(rows[0][8], "0") << r.output;  // CommitLogMin
  EXPECT_GT(std::stoll(rows[0][9]), 0) << r.output;
  EXPECT_EQ(rows[0][10], "ASYNC_FLUSH");
  EXPECT_EQ(rows[0][11], "ASYNC_MASTER");
  EXPECT_EQ(rows[0][12], "slaves:0,inSync:0") << r.output;  // a master alone

  r = admin({"brokerStatus", "-c", "TestCluster", "-v"});
  ASSERT_EQ(r.status, 0) << r.output;
  for (const char* key : {"putTps", "getTransferedTps", "commitLogDiskRatio", "bootTimestamp", "runtime",
                          "masterCommitLogMaxOffset", "slaveNum", "inSyncSlaveNums", "haReplicatedOffset"}) {
    EXPECT_TRUE(contains(r.output, std::string("  ") + key)) << key << "\n" << r.output;
  }

  const std::string dead = "127.0.0.1:" + std::to_string(free_port());
  r = admin({"brokerStatus", "-b", dead});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(contains(r.output, dead)) << r.output;
  r = admin({"brokerStatus", "-c", "NoSuchCluster"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "NoSuchCluster")) << r.output;
  r = admin({"brokerStatus", "-c", "TestCluster", "-b", broker_addr()});
  EXPECT_EQ(r.status, 2) << r.output;
}

// A master alone: haStatus shows it with no slave; promoteSlave refuses a master and a bad role.
TEST_F(MqadminTest, HaStatusOfALoneMasterAndPromoteSlaveRefusals) {
  RunResult r = admin({"haStatus", "-c", "TestCluster"});
  ASSERT_EQ(r.status, 0) << r.output;
  auto rows = table_rows(r.output, "#Broker");
  ASSERT_EQ(rows.size(), 1u) << r.output;
  ASSERT_EQ(rows[0].size(), 8u) << r.output;
  EXPECT_EQ(rows[0][2], broker_addr());
  EXPECT_EQ(rows[0][3], "ASYNC_MASTER");
  EXPECT_EQ(rows[0][7], "slaves:0,inSync:0") << r.output;
  EXPECT_EQ(admin({"haStatus"}).status, 2);  // -b or -c

  r = admin({"promoteSlave", "-b", broker_addr()});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "already a master")) << r.output;
  r = admin({"promoteSlave", "-b", broker_addr(), "-r", "SLAVE"});
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "SYNC_MASTER or ASYNC_MASTER")) << r.output;
  EXPECT_EQ(admin({"promoteSlave"}).status, 2);  // -b is required
}

TEST_F(MqadminTest, ResetOffsetByTimeMovesTheGroupsOffsets) {
  RunResult r = admin({"updateTopic", "-t", "ResetT", "-c", "TestCluster", "-r", "2", "-w", "2"});
  ASSERT_EQ(r.status, 0) << r.output;
  ASSERT_EQ(admin({"sendMessage", "-t", "ResetT", "-p", "old-{i}", "-c", "4"}).status, 0);
  // A point in time between the two batches (store times have millisecond resolution).
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const auto between_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                              std::chrono::system_clock::now().time_since_epoch())
                              .count();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_EQ(admin({"sendMessage", "-t", "ResetT", "-p", "new-{i}", "-c", "6"}).status, 0);

  // "now": after every message, so every queue goes to its max offset.
  r = admin({"resetOffsetByTime", "-g", "RG", "-t", "ResetT", "-s", "now"});
  ASSERT_EQ(r.status, 0) << r.output;
  auto rows = table_rows(r.output, "#Broker");
  ASSERT_EQ(rows.size(), 2u) << r.output;
  for (const auto& row : rows) {
    ASSERT_EQ(row.size(), 6u) << r.output;
    EXPECT_EQ(row[5], row[2]) << r.output;  // ResetOffset == BrokerOffset
  }
  EXPECT_EQ(column_sum(rows, 2), 10) << r.output;
  r = admin({"consumerProgress", "-g", "RG", "-t", "ResetT"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "Diff Total: 0")) << r.output;

  // Between the batches: the 6 new messages are to be consumed again.
  r = admin({"resetOffsetByTime", "-g", "RG", "-t", "ResetT", "-s", std::to_string(between_ms)});
  ASSERT_EQ(r.status, 0) << r.output;
  rows = table_rows(r.output, "#Broker");
  EXPECT_EQ(column_sum(rows, 5), 4) << r.output;
  r = admin({"consumerProgress", "-g", "RG", "-t", "ResetT"});
  EXPECT_TRUE(contains(r.output, "Diff Total: 6")) << r.output;

  // -f false only moves offsets back: "now" is ahead of them, so they stay.
  r = admin({"resetOffsetByTime", "-g", "RG", "-t", "ResetT", "-s", "now", "-f", "false"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(column_sum(table_rows(r.output, "#Broker"), 5), 4) << r.output;
  // The epoch: back to the first message of every queue.
  r = admin({"resetOffsetByTime", "-g", "RG", "-t", "ResetT", "-s", "1970-01-01T00:00:00Z", "-f", "false"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(column_sum(table_rows(r.output, "#Broker"), 5), 0) << r.output;
  r = admin({"consumerProgress", "-g", "RG", "-t", "ResetT"});
  EXPECT_TRUE(contains(r.output, "Diff Total: 10")) << r.output;

  r = admin({"resetOffsetByTime", "-g", "RG", "-t", "ResetT", "-s", "yesterday"});
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "'yesterday' is not a point in time")) << r.output;
  r = admin({"resetOffsetByTime", "-g", "RG", "-t", "NoSuchTopic", "-s", "now"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "NoSuchTopic")) << r.output;
}

TEST_F(MqadminTest, UpdateSubGroupChangesOnlyTheGivenSettings) {
  RunResult r = admin({"updateTopic", "-t", "SubT", "-c", "TestCluster", "-r", "1", "-w", "1"});
  ASSERT_EQ(r.status, 0) << r.output;
  ASSERT_EQ(admin({"sendMessage", "-t", "SubT", "-p", "m", "-c", "1"}).status, 0);

  r = admin({"updateSubGroup", "-g", "SG", "-c", "TestCluster", "-q", "3", "-r", "5", "-d", "false"});
  ASSERT_EQ(r.status, 0) << r.output;
  auto rows = table_rows(r.output, "#Broker");
  ASSERT_EQ(rows.size(), 1u) << r.output;
  EXPECT_EQ(rows[0], (std::vector<std::string>{"broker-a", broker_addr(), "SG", "true", "true", "false", "3", "5", "0", "1",
                                               "true", "false"}))
      << r.output;

  // Only consumeEnable changes; the retry settings stay. A pull of the group is then refused.
  r = admin({"updateSubGroup", "-g", "SG", "-b", broker_addr(), "-s", "false"});
  ASSERT_EQ(r.status, 0) << r.output;
  rows = table_rows(r.output, "#Broker");
  ASSERT_EQ(rows.size(), 1u) << r.output;
  EXPECT_EQ(rows[0][3], "false") << r.output;
  EXPECT_EQ(rows[0][6], "3") << r.output;
  EXPECT_EQ(rows[0][7], "5") << r.output;
  r = admin({"consumeMessage", "-t", "SubT", "-g", "SG"});
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "NO_PERMISSION")) << r.output;
  ASSERT_EQ(admin({"updateSubGroup", "-g", "SG", "-b", broker_addr(), "-s", "true"}).status, 0);
  r = admin({"consumeMessage", "-t", "SubT", "-g", "SG"});
  EXPECT_EQ(r.status, 0) << r.output;

  r = admin({"updateSubGroup", "-g", "SG", "-c", "TestCluster", "-q", "many"});
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "--retryQueueNums: 'many' is not a number")) << r.output;
  r = admin({"updateSubGroup", "-g", "SG", "-c", "TestCluster", "-s", "maybe"});
  EXPECT_EQ(r.status, 2) << r.output;
  r = admin({"updateSubGroup", "-g", "SG"});
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "give exactly one of -c clusterName and -b brokerAddr")) << r.output;
  r = admin({"updateSubGroup", "-g", "SG", "-b", "127.0.0.1:" + std::to_string(free_port())});
  EXPECT_EQ(r.status, 1) << r.output;
}

}  // namespace
}  // namespace ferry::daemons_test
