// mqadmin verbs over a real mqbroker and mqnamesrv that read or clean what the store holds:
// cleanExpiredCQ (CLEAN_EXPIRED_CONSUMEQUEUE, 306) after the broker's cleanup deleted a topic's
// CommitLog files, printMsg (pulls between two store times), and deleteSubGroup -c removing the
// group's %RETRY% and %DLQ% topics.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <set>
#include <sstream>
#include <thread>

#include "tests/daemons/daemon_process.h"
#include "tests/daemons/mqadmin_output.h"

namespace ferry::daemons_test {
namespace {

using namespace std::chrono_literals;

constexpr auto kCommand = 30s;

bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The lines of `text` that start with `prefix`.
std::vector<std::string> lines_starting(const std::string& text, const std::string& prefix) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind(prefix, 0) == 0) out.push_back(line);
  }
  return out;
}

// The text between "BODY: " and the end of a printMsg line.
std::string body_of(const std::string& line) {
  const auto at = line.find(" BODY: ");
  return at == std::string::npos ? "" : line.substr(at + 7);
}

std::set<std::string> bodies_of(const std::string& output) {
  std::set<std::string> out;
  for (const std::string& l : lines_starting(output, "MSGID: ")) out.insert(body_of(l));
  return out;
}

class MqadminStoreTest : public ::testing::Test {
 protected:
  RunResult admin(std::vector<std::string> args) {
    args.insert(args.end(), {"-n", cluster_.namesrv_addr()});
    const std::string out = dir_ / ("run-" + std::to_string(++runs_) + ".out");
    RunResult r = run_to_exit(FERRY_MQADMIN_PATH, args, out, kCommand);
    std::string line;
    for (const auto& a : args) line += " " + a;
    r.output = "$ mqadmin" + line + "\n" + r.output;
    return r;
  }
  // Sends `n` messages with body "<prefix><i>" to `topic`; their msgIds (the table's first column).
  std::vector<std::string> send(const std::string& topic, const std::string& prefix, int n,
                                const std::string& tag = "") {
    std::vector<std::string> args{"sendMessage", "-t", topic, "-p", prefix + "{i}", "-c", std::to_string(n)};
    if (!tag.empty()) args.insert(args.end(), {"-g", tag});
    RunResult r = admin(args);
    EXPECT_EQ(r.status, 0) << r.output;
    std::vector<std::string> ids;
    for (const auto& row : table_rows(r.output, "#MsgId")) ids.push_back(row.at(0));
    EXPECT_EQ(ids.size(), static_cast<std::size_t>(n)) << r.output;
    return ids;
  }
  // topicStatus of a one-queue topic: {min, max}.
  std::pair<long long, long long> queue_offsets(const std::string& topic) {
    RunResult r = admin({"topicStatus", "-t", topic});
    EXPECT_EQ(r.status, 0) << r.output;
    auto rows = table_rows(r.output, "#Broker");
    if (rows.size() != 1u || rows[0].size() < 4u) {
      ADD_FAILURE() << r.output;
      return {-1, -1};
    }
    return {std::stoll(rows[0][2]), std::stoll(rows[0][3])};
  }

  // brokerStatus: {CommitLogMin, CommitLogMax}.
  std::pair<long long, long long> log_range() {
    RunResult r = admin({"brokerStatus", "-b", cluster_.broker_addr()});
    EXPECT_EQ(r.status, 0) << r.output;
    auto rows = table_rows(r.output, "#Broker");
    if (rows.size() != 1u || rows[0].size() < 10u) {
      ADD_FAILURE() << r.output;
      return {-1, -1};
    }
    return {std::stoll(rows[0][8]), std::stoll(rows[0][9])};
  }

  TempDir dir_;
  LocalCluster cluster_{dir_};
  int runs_ = 0;
};

// The broker's cleanup deletes every CommitLog file but the newest at once while the disk is at
// least diskSpaceCleanForciblyRatio (10 %) full, every 100 ms; 4 KiB files hold ~25 messages.
TEST_F(MqadminStoreTest, CleanExpiredCqDestroysQueuesWhoseMessagesAreGone) {
  // The broker's measure (statvfs: f_bavail of f_blocks) of the disk the test directory is on.
  const std::filesystem::space_info disk = std::filesystem::space(dir_.path());
  const std::uintmax_t used_pct =
      disk.capacity > 0 ? (disk.capacity - std::min(disk.available, disk.capacity)) * 100 / disk.capacity : 0;
  const bool cleans = used_pct >= 11 && used_pct < 95;
  ASSERT_EQ(cluster_.start_namesrv(), "");
  ASSERT_EQ(cluster_.start_broker(cleans ? "mappedFileSizeCommitLog=4096\nmaxMessageSize=1024\n"
                                           "cleanResourceInterval=100\ndiskMaxUsedSpaceRatio=10\n"
                                           "diskSpaceCleanForciblyRatio=10\ndiskSpaceWarningLevelRatio=99\n"
                                         : ""),
            "");
  for (const char* t : {"OldT", "KeepT"}) {
    RunResult r = admin({"updateTopic", "-t", t, "-c", "TestCluster", "-r", "1", "-w", "1"});
    ASSERT_EQ(r.status, 0) << r.output;
  }

  // The reply alone, on a broker with nothing to clean: -b, -c, and every broker.
  RunResult r = admin({"cleanExpiredCQ", "-b", cluster_.broker_addr()});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "clean expired ConsumeQueue on broker broker-a (" + cluster_.broker_addr() +
                                     "): success")) << r.output;
  EXPECT_EQ(lines_starting(r.output, "success").size(), 1u) << r.output;
  r = admin({"cleanExpiredCQ", "-c", "TestCluster"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(lines_starting(r.output, "success").size(), 1u) << r.output;
  r = admin({"cleanExpiredCQ"});
  ASSERT_EQ(r.status, 0) << r.output;
  r = admin({"cleanExpiredCQ", "-c", "NoSuchCluster"});
  EXPECT_EQ(r.status, 1) << r.output;
  if (!cleans) GTEST_SKIP() << "the disk is not between 11 % and 95 % used: the broker's cleanup would not run";

  // OldT's 40 messages, then KeepT's 80: the files holding OldT are not the newest.
  send("OldT", "old-", 40);
  send("KeepT", "keep-", 80);
  // Wait until the broker's cleanup (every 100 ms) has deleted every CommitLog file but the newest
  // (a bounded wait, no threshold): the log then starts where its newest 4 KiB file does.
  std::pair<long long, long long> log = log_range();
  for (int i = 0; i < 200 && log.first != log.second - log.second % 4096; ++i) {
    std::this_thread::sleep_for(100ms);
    log = log_range();
  }
  ASSERT_EQ(log.first, log.second - log.second % 4096) << "the broker did not delete its old CommitLog files";
  // Cleanup moved OldT's min offset to its end: its messages are gone.
  ASSERT_EQ(queue_offsets("OldT"), (std::pair<long long, long long>{40, 40}));
  const std::pair<long long, long long> keep = queue_offsets("KeepT");
  ASSERT_GT(keep.first, 0);
  ASSERT_LT(keep.first, 80);
  EXPECT_TRUE(std::filesystem::exists(dir_ / "store/consumequeue/OldT/0"));

  r = admin({"cleanExpiredCQ", "-c", "TestCluster"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(lines_starting(r.output, "success").size(), 1u) << r.output;
  // OldT's queue is gone: no offsets, no files; KeepT is untouched.
  EXPECT_EQ(queue_offsets("OldT"), (std::pair<long long, long long>{0, 0}));
  EXPECT_FALSE(std::filesystem::exists(dir_ / "store/consumequeue/OldT")) << r.output;
  EXPECT_EQ(queue_offsets("KeepT"), keep);
  r = admin({"printMsg", "-t", "KeepT", "-d", "true"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(lines_starting(r.output, "MSGID: ").size(), static_cast<std::size_t>(80 - keep.first)) << r.output;
  EXPECT_EQ(bodies_of(r.output).count("keep-79"), 1u) << r.output;

  // A new message to OldT starts the queue again at offset 0 (as RocketMQ), also after a restart.
  r = admin({"sendMessage", "-t", "OldT", "-p", "reborn"});
  ASSERT_EQ(r.status, 0) << r.output;
  auto rows = table_rows(r.output, "#MsgId");
  ASSERT_EQ(rows.size(), 1u) << r.output;
  EXPECT_EQ(rows[0][4], "0") << r.output;
  ASSERT_EQ(cluster_.stop_broker(), "");
  ASSERT_EQ(cluster_.start_broker("mappedFileSizeCommitLog=4096\nmaxMessageSize=1024\n"), "");
  r = admin({"printMsg", "-t", "OldT"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(bodies_of(r.output), (std::set<std::string>{"reborn"})) << r.output;
  EXPECT_TRUE(contains(r.output, "minOffset=0, maxOffset=1, MessageQueue [topic=OldT, brokerName=broker-a, queueId=0]"))
      << r.output;
}

TEST_F(MqadminStoreTest, PrintMsgPrintsEveryMessageBetweenTwoStoreTimes) {
  ASSERT_EQ(cluster_.start_namesrv(), "");
  ASSERT_EQ(cluster_.start_broker(), "");
  RunResult r = admin({"updateTopic", "-t", "PrintT", "-c", "TestCluster", "-r", "2", "-w", "2"});
  ASSERT_EQ(r.status, 0) << r.output;
  const std::vector<std::string> early = send("PrintT", "early-", 5, "TagA");
  // `middle` lies strictly between the two batches' store times (same machine clock).
  std::this_thread::sleep_for(5ms);
  const std::int64_t middle = now_ms();
  std::this_thread::sleep_for(5ms);
  const std::vector<std::string> late = send("PrintT", "late-", 4, "TagB");

  r = admin({"printMsg", "-t", "PrintT"});
  ASSERT_EQ(r.status, 0) << r.output;
  const std::vector<std::string> lines = lines_starting(r.output, "MSGID: ");
  ASSERT_EQ(lines.size(), 9u) << r.output;
  std::set<std::string> printed_ids;
  for (const std::string& l : lines) {
    std::istringstream in(l);
    std::string label, id;
    in >> label >> id;
    printed_ids.insert(id);
    EXPECT_TRUE(contains(l, " MessageExt [brokerName=broker-a, queueId=")) << l;
    EXPECT_TRUE(contains(l, "toString()=Message{topic='PrintT', flag=0, properties={")) << l;
  }
  std::set<std::string> sent_ids(early.begin(), early.end());
  sent_ids.insert(late.begin(), late.end());
  EXPECT_EQ(printed_ids, sent_ids) << r.output;
  EXPECT_EQ(bodies_of(r.output), (std::set<std::string>{"early-0", "early-1", "early-2", "early-3", "early-4", "late-0",
                                                        "late-1", "late-2", "late-3"}))
      << r.output;
  EXPECT_EQ(lines_starting(r.output, "minOffset=").size(), 2u) << r.output;
  EXPECT_EQ(lines_starting(r.output, "-----").size(), 2u) << r.output;

  // -b: from the first message stored at or after `middle`; -e: up to it.
  r = admin({"printMsg", "-t", "PrintT", "-b", std::to_string(middle)});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(bodies_of(r.output), (std::set<std::string>{"late-0", "late-1", "late-2", "late-3"})) << r.output;
  r = admin({"printMsg", "-t", "PrintT", "-e", std::to_string(middle)});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(bodies_of(r.output), (std::set<std::string>{"early-0", "early-1", "early-2", "early-3", "early-4"}))
      << r.output;
  r = admin({"printMsg", "-t", "PrintT", "-b", std::to_string(middle), "-e", std::to_string(now_ms() + 60'000)});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(lines_starting(r.output, "MSGID: ").size(), 4u) << r.output;

  // -s filters by tag; -d false leaves the bodies out.
  r = admin({"printMsg", "-t", "PrintT", "-s", "TagB"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(bodies_of(r.output), (std::set<std::string>{"late-0", "late-1", "late-2", "late-3"})) << r.output;
  r = admin({"printMsg", "-t", "PrintT", "-d", "false"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_EQ(bodies_of(r.output), (std::set<std::string>{"NOT PRINT BODY"})) << r.output;
  EXPECT_EQ(lines_starting(r.output, "MSGID: ").size(), 9u) << r.output;

  r = admin({"printMsg", "-t", "PrintT", "-c", "GBK"});
  EXPECT_EQ(r.status, 2) << r.output;
  r = admin({"printMsg", "-t", "NoSuchTopic"});
  EXPECT_EQ(r.status, 1) << r.output;
}

TEST_F(MqadminStoreTest, DeleteSubGroupWithClusterAlsoDeletesTheRetryAndDlqTopics) {
  ASSERT_EQ(cluster_.start_namesrv(), "");
  ASSERT_EQ(cluster_.start_broker(), "");
  for (const char* t : {"%RETRY%DG", "%DLQ%DG", "%RETRY%OtherG"}) {
    RunResult r = admin({"updateTopic", "-t", t, "-c", "TestCluster", "-r", "1", "-w", "1"});
    ASSERT_EQ(r.status, 0) << r.output;
  }
  RunResult r = admin({"updateSubGroup", "-g", "DG", "-c", "TestCluster"});
  ASSERT_EQ(r.status, 0) << r.output;
  r = admin({"topicList"});
  ASSERT_EQ(r.status, 0) << r.output;
  ASSERT_TRUE(contains(r.output, "%RETRY%DG")) << r.output;
  ASSERT_TRUE(contains(r.output, "%DLQ%DG")) << r.output;

  // -b deletes the group only (RocketMQ deletes the topics with -c only).
  r = admin({"deleteSubGroup", "-g", "DG", "-b", cluster_.broker_addr()});
  ASSERT_EQ(r.status, 0) << r.output;
  r = admin({"topicRoute", "-t", "%RETRY%DG"});
  EXPECT_EQ(r.status, 0) << r.output;

  r = admin({"deleteSubGroup", "-g", "DG", "-c", "TestCluster"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "delete subscription group [DG] from broker [" + cluster_.broker_addr() +
                                     "] in cluster [TestCluster] success.")) << r.output;
  EXPECT_TRUE(contains(r.output, "delete topic [%RETRY%DG] from cluster [TestCluster] success.")) << r.output;
  EXPECT_TRUE(contains(r.output, "delete topic [%DLQ%DG] from cluster [TestCluster] success.")) << r.output;
  EXPECT_TRUE(contains(r.output, "delete topic [%DLQ%DG] from NameServer success.")) << r.output;
  r = admin({"topicList"});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_FALSE(contains(r.output, "%RETRY%DG")) << r.output;
  EXPECT_FALSE(contains(r.output, "%DLQ%DG")) << r.output;
  EXPECT_TRUE(contains(r.output, "%RETRY%OtherG")) << "another group's retry topic stays\n" << r.output;
  r = admin({"topicRoute", "-t", "%RETRY%DG"});
  EXPECT_EQ(r.status, 1) << r.output;

  // Again: nothing left to delete is no error.
  r = admin({"deleteSubGroup", "-g", "DG", "-c", "TestCluster"});
  EXPECT_EQ(r.status, 0) << r.output;
}

}  // namespace
}  // namespace ferry::daemons_test
