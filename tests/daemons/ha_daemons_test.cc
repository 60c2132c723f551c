// A master/slave pair as real processes on 127.0.0.1, started from the examples in conf/ with
// only the machine's keys changed (namesrvAddr, brokerIP1, listenPort, storePathRootDir, and small
// CommitLog files): conf/2m-2s-sync-*.conf (SYNC_MASTER + SYNC_FLUSH, a SLAVE with
// slaveReadEnable) killed under load, conf/2m-2s-async-*.conf replicating. The master's example
// keeps haListenPort=10912, which is not its listenPort + 1 here: warned about and ignored, as
// RocketMQ 4.9 does. Every test has its own temp dir and free ports and kills what it started.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <signal.h>

#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <thread>

#include "tests/daemons/daemon_process.h"
#include "tests/daemons/mqadmin_output.h"
#include "tests/daemons/kill_traffic.h"
#include "tests/daemons/wire_client.h"

namespace ferry::daemons_test {
namespace {

using namespace std::chrono_literals;

constexpr auto kReady = 15s;
constexpr auto kCommand = 30s;
constexpr const char* kTopic = "HaT";
constexpr int kQueues = 4;

std::string mqadmin_path() { return FERRY_MQADMIN_PATH; }
std::string source_dir() {
  const char* env = std::getenv("FERRY_SOURCE_DIR");
  return env != nullptr ? env : FERRY_SOURCE_DIR_PATH;
}

bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// The example `conf/name` with the values of `overrides` in place of the file's.
std::string from_example(const std::string& name, std::map<std::string, std::string> overrides) {
  return conf_from_example(source_dir() + "/conf/" + name, std::move(overrides));
}

class HaDaemonsTest : public ::testing::Test {
 protected:
  std::string ns_addr() const { return "127.0.0.1:" + std::to_string(ns_port_); }
  static std::string addr(std::uint16_t port) { return "127.0.0.1:" + std::to_string(port); }

  void start_namesrv() {
    ns_port_ = free_port();
    namesrv_ = spawn_namesrv(dir_, ns_port_);
    ASSERT_TRUE(wait_for_port(ns_port_, kReady)) << namesrv_->output();
  }

  // Writes {name}.conf from the example and starts a broker on it.
  std::unique_ptr<Child> start_broker(const std::string& example, const std::string& name, std::uint16_t port) {
    const std::string conf = dir_ / (name + ".conf");
    write_file(conf, from_example(example, {{"namesrvAddr", ns_addr()},
                                            {"brokerIP1", "127.0.0.1"},
                                            {"listenPort", std::to_string(port)},
                                            {"storePathRootDir", dir_ / name},
                                            {"mappedFileSizeCommitLog", "1048576"},
                                            {"maxMessageSize", "65536"}}));
    auto child = std::make_unique<Child>(mqbroker_path(), std::vector<std::string>{"-c", conf}, dir_ / (name + ".out"));
    EXPECT_TRUE(wait_for_port(port, kReady)) << child->output();
    return child;
  }

  RunResult admin(std::vector<std::string> args) {
    args.insert(args.end(), {"-n", ns_addr()});
    RunResult r = run_to_exit(mqadmin_path(), args, dir_ / ("mqadmin-" + std::to_string(++runs_) + ".out"), kCommand);
    std::string line;
    for (const auto& a : args) line += " " + a;
    r.output = "$ mqadmin" + line + "\n" + r.output;
    return r;
  }

  // Runs `mqadmin haStatus -c DefaultCluster` until `ok(rows)` (every 200 ms, `limit` at most);
  // returns the last output.
  std::string wait_ha_status(const std::function<bool(const std::vector<std::vector<std::string>>&)>& ok,
                             std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    std::string last;
    while (std::chrono::steady_clock::now() < deadline) {
      RunResult r = admin({"haStatus", "-c", "DefaultCluster"});
      last = r.output;
      if (r.status == 0 && ok(table_rows(r.output, "#Broker"))) return last;
      std::this_thread::sleep_for(200ms);
    }
    ADD_FAILURE() << "haStatus did not show what was expected within the bound:\n" << last;
    return last;
  }

  // Starts the pair of the examples `{kind}-master.conf` / `{kind}-slave.conf`, the topic created
  // on the master before the slave starts (its first metadata sync copies it), and waits until
  // the slave is linked.
  void start_pair(const std::string& kind) {
    start_namesrv();
    master_port_ = free_broker_port();
    do {
      slave_port_ = free_broker_port();
    } while (slave_port_ + 1 >= master_port_ && slave_port_ <= master_port_ + 1);  // four ports, all apart
    master_ = start_broker("2m-2s-" + kind + "-master.conf", "master", master_port_);
    RunResult r = admin({"updateTopic", "-t", kTopic, "-c", "DefaultCluster", "-r", std::to_string(kQueues), "-w",
                         std::to_string(kQueues)});
    ASSERT_EQ(r.status, 0) << r.output;
    slave_ = start_broker("2m-2s-" + kind + "-slave.conf", "slave", slave_port_);
    const std::string linked = "linked:" + addr(master_port_ + 1);
    wait_ha_status(
        [&](const auto& rows) {
          return rows.size() == 2 && rows[0].size() == 8 && rows[1].size() == 8 && rows[0][7] == "slaves:1,inSync:1" &&
                 rows[1][7] == linked;
        },
        20s);
  }

  TempDir dir_;
  std::uint16_t ns_port_ = 0;
  std::uint16_t master_port_ = 0;
  std::uint16_t slave_port_ = 0;
  std::unique_ptr<Child> namesrv_;
  std::unique_ptr<Child> master_;
  std::unique_ptr<Child> slave_;
  int runs_ = 0;
};

// Senders keep 8 sends in flight to the master; after enough acknowledgements it is SIGKILLed.
TEST_F(HaDaemonsTest, SyncMasterKilledUnderLoadSlaveServesEveryAcknowledgedMessageThenPromoteSlaveTakesSends) {
  start_pair("sync");
  if (HasFailure()) return;
  // The example's haListenPort (10912) is not listenPort + 1 here: warned about by file, line and
  // key, and ignored (the slave linked to listenPort + 1 above).
  std::size_t line = 0;
  {
    std::istringstream conf(read_file(dir_ / "master.conf"));
    std::size_t n = 0;
    for (std::string l; std::getline(conf, l);) {
      ++n;
      if (l.rfind("haListenPort=", 0) == 0) line = n;
    }
  }
  ASSERT_GT(line, 0u) << "the example sets haListenPort";
  EXPECT_TRUE(contains(master_->output(), "master.conf:" + std::to_string(line) +
                                              ": haListenPort 10912 is ignored: the HA port is always listenPort + 1 (" +
                                              std::to_string(master_port_ + 1) + ")"))
      << master_->output();

  WireClient client(dir_ / "client");
  KillTraffic t;
  t.rpc = &client.rpc();
  t.addr = addr(master_port_);
  t.topic = kTopic;
  t.queues = kQueues;
  t.victim = master_->pid();
  t.kill_after_acks = 800;
  t.stop_on_refusal = false;  // SLAVE_NOT_AVAILABLE / FLUSH_SLAVE_TIMEOUT are counted, not fatal
  client.rt().block_on(run_kill_traffic(&t, &client.rt(), 8));
  ASSERT_TRUE(t.killed) << "only " << t.acks << " acks";
  auto st = master_->wait(5s);
  ASSERT_TRUE(st.has_value());
  EXPECT_EQ(*st, 128 + SIGKILL);
  EXPECT_TRUE(t.other_codes.empty()) << "a send was not promised with a slave linked: code " << t.other_codes.begin()->first;

  // Every acknowledged message is on the slave, at its queue offset, with its body.
  std::map<std::pair<std::int32_t, std::int64_t>, std::string> on_slave;
  for (int q = 0; q < kQueues; ++q) {
    for (const PulledMessage& m : client.pull_all(addr(slave_port_), kTopic, q)) on_slave[{q, m.queue_offset}] = m.body;
  }
  std::size_t missing = 0;
  for (const auto& [pos, body] : t.acked) {
    auto it = on_slave.find(pos);
    if (it == on_slave.end() || it->second != body) {
      if (++missing <= 5) ADD_FAILURE() << "acknowledged q" << pos.first << "@" << pos.second << " " << body << " not on the slave";
    }
  }
  EXPECT_EQ(missing, 0u) << "of " << t.acked.size() << " acknowledged; the slave holds " << on_slave.size();
  // A slave refuses writes.
  EXPECT_NE(client.send_now(addr(slave_port_), kTopic, 0, "to-the-slave").code, 0);

  RunResult r = admin({"promoteSlave", "-b", addr(slave_port_)});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "promoted to ASYNC_MASTER")) << r.output;
  const SendOutcome after = client.send_now(addr(slave_port_), kTopic, 0, "after-promotion");
  ASSERT_EQ(after.code, 0) << after.error;
  EXPECT_EQ(after.queue_id, 0);
  // It continues the queue where the old master's acknowledged messages end.
  std::int64_t last_acked_q0 = -1;
  for (const auto& [pos, body] : t.acked) {
    if (pos.first == 0) last_acked_q0 = std::max(last_acked_q0, pos.second);
  }
  EXPECT_GT(after.queue_offset, last_acked_q0);
  // haStatus shows the promoted broker as the group's master; the NameServer routes to it.
  r = admin({"haStatus", "-b", addr(slave_port_)});
  ASSERT_EQ(r.status, 0) << r.output;
  auto rows = table_rows(r.output, "#Broker");
  ASSERT_EQ(rows.size(), 1u) << r.output;
  ASSERT_EQ(rows[0].size(), 8u) << r.output;
  EXPECT_EQ(rows[0][3], "ASYNC_MASTER") << r.output;
  std::string route;
  ASSERT_EQ(client.route(ns_addr(), kTopic, &route), 0);
  EXPECT_TRUE(contains(route, "\"0\":\"" + addr(slave_port_) + "\"") || contains(route, "0:\"" + addr(slave_port_) + "\""))
      << route;
}

// conf/2m-2s-async-*.conf as written (but for the machine's keys): the slave replicates, and
// haStatus shows it at the master's offset with no lag.
TEST_F(HaDaemonsTest, AsyncPairFromTheExamplesReplicates) {
  start_pair("async");
  if (HasFailure()) return;
  WireClient client(dir_ / "client");
  for (int i = 0; i < 20; ++i) {
    const std::string body = fmt::format("m{}", i);
    ASSERT_EQ(client.send_now(addr(master_port_), kTopic, i % kQueues, body).code, 0);
  }
  const std::string out = wait_ha_status(
      [](const auto& rows) {
        return rows.size() == 2 && rows[0].size() == 8 && rows[1].size() == 8 && rows[1][4] == rows[0][4] &&
               rows[1][5] == "0" && rows[1][6] == "0.0";
      },
      20s);
  const auto rows = table_rows(out, "#Broker");
  ASSERT_EQ(rows.size(), 2u) << out;
  EXPECT_EQ(rows[0][3], "ASYNC_MASTER");
  EXPECT_EQ(rows[1][3], "SLAVE");
  EXPECT_GT(std::stoll(rows[0][4]), 0) << out;
  // The connection table lists the slave as in sync.
  EXPECT_TRUE(contains(out, "OK")) << out;
  for (int q = 0; q < kQueues; ++q) EXPECT_EQ(client.pull_all(addr(slave_port_), kTopic, q).size(), 5u) << "queue " << q;
}

}  // namespace
}  // namespace ferry::daemons_test
