// Automatic failover on real processes (issue 32): conf/controller/ as written but for the
// machine's keys (ports, folders, small CommitLog files) — three mqnamesrv with embedded
// controllers and a group of three mqbroker in controller mode with allAckInSyncStateSet. kill -9
// of the master under load: with no operator, another broker is elected and takes writes, every
// acknowledged message is readable on it, and the old master started again with its old store
// rejoins as a slave holding the new master's messages. Prints the failover time.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <signal.h>

#include <chrono>
#include <cstdlib>
#include <map>
#include <memory>
#include <thread>

#include "tests/daemons/daemon_process.h"
#include "tests/daemons/kill_traffic.h"
#include "tests/daemons/wire_client.h"

namespace ferry::daemons_test {
namespace {

using namespace std::chrono_literals;

constexpr const char* kTopic = "FailoverT";
constexpr int kQueues = 4;

std::string mqadmin_path() { return FERRY_MQADMIN_PATH; }
std::string source_dir() {
  const char* env = std::getenv("FERRY_SOURCE_DIR");
  return env != nullptr ? env : FERRY_SOURCE_DIR_PATH;
}
std::string addr(std::uint16_t port) { return "127.0.0.1:" + std::to_string(port); }

class FailoverDaemons : public ::testing::Test {
 protected:
  void SetUp() override {
    const QuorumPorts q = quorum_ports();
    const std::string& peers = q.peers;
    std::copy(std::begin(q.namesrv), std::end(q.namesrv), std::begin(ns_ports_));
    std::copy(std::begin(q.controller), std::end(q.controller), std::begin(controller_ports_));
    for (int i = 0; i < 3; ++i) {
      const std::string conf = dir_.path() + fmt::format("/namesrv-n{}.conf", i);
      write_file(conf, conf_from_example(source_dir() + fmt::format("/conf/controller/namesrv-n{}.conf", i),
                                         {{"listenPort", std::to_string(ns_ports_[i])}, {"controllerDLegerPeers", peers}}));
      namesrvs_[i] = std::make_unique<Child>(mqnamesrv_path(),
                                             std::vector<std::string>{"-c", conf, "-d", dir_.path() + fmt::format("/n{}", i)},
                                             dir_.path() + fmt::format("/n{}.out", i));
      ASSERT_TRUE(wait_for_port(controller_ports_[i], 15s)) << namesrvs_[i]->output();
    }
    for (int i = 0; i < 3; ++i) {
      do {
        broker_ports_[i] = free_broker_port();
      } while (i > 0 && (broker_ports_[i] <= broker_ports_[i - 1] + 1 && broker_ports_[i] + 1 >= broker_ports_[i - 1]));
      start_broker(i);
    }
  }

  std::string namesrv_list() const {
    return fmt::format("{};{};{}", addr(ns_ports_[0]), addr(ns_ports_[1]), addr(ns_ports_[2]));
  }

  void start_broker(int i) {
    const std::string conf = dir_.path() + fmt::format("/broker-n{}.conf", i);
    write_file(conf, conf_from_example(source_dir() + fmt::format("/conf/controller/broker-n{}.conf", i),
                                       {{"namesrvAddr", namesrv_list()},
                                        {"controllerAddr", fmt::format("{};{};{}", addr(controller_ports_[0]),
                                                                       addr(controller_ports_[1]), addr(controller_ports_[2]))},
                                        {"brokerIP1", "127.0.0.1"},
                                        {"listenPort", std::to_string(broker_ports_[i])},
                                        {"storePathRootDir", dir_.path() + fmt::format("/broker-n{}", i)},
                                        {"mappedFileSizeCommitLog", "1048576"},
                                        {"maxMessageSize", "65536"}}));
    brokers_[i] = std::make_unique<Child>(mqbroker_path(), std::vector<std::string>{"-c", conf},
                                          dir_.path() + fmt::format("/broker-n{}-{}.out", i, ++starts_[i]));
    ASSERT_TRUE(wait_for_port(broker_ports_[i], 15s)) << brokers_[i]->output();
  }

  // The broker the NameServer routes `kTopic` to as brokerId 0, or -1.
  int routed_master(WireClient& client, int ns = 0) {
    std::string route;
    if (client.route(addr(ns_ports_[ns]), kTopic, &route) != 0) return -1;
    for (int i = 0; i < 3; ++i) {
      const std::string a = addr(broker_ports_[i]);
      if (route.find("\"0\":\"" + a + "\"") != std::string::npos || route.find("0:\"" + a + "\"") != std::string::npos) return i;
    }
    return -1;
  }

  RunResult admin(std::vector<std::string> args) {
    args.insert(args.end(), {"-n", addr(ns_ports_[0])});
    return run_to_exit(mqadmin_path(), args, dir_.path() + fmt::format("/mqadmin-{}.out", ++runs_), 30s);
  }

  TempDir dir_;
  std::uint16_t ns_ports_[3] = {};
  std::uint16_t controller_ports_[3] = {};
  std::uint16_t broker_ports_[3] = {};
  int starts_[3] = {};
  int runs_ = 0;
  std::unique_ptr<Child> namesrvs_[3];
  std::unique_ptr<Child> brokers_[3];
};

TEST_F(FailoverDaemons, TheMasterKilledUnderLoadIsReplacedWithNoOperatorAndRejoinsAsASlave) {
  if (HasFailure()) return;
  WireClient client(dir_.path() + "/client");
  // The controllers name a master; the topic is created on it (mqadmin finds it by cluster).
  RunResult r;
  const auto created_by = std::chrono::steady_clock::now() + 60s;
  do {
    std::this_thread::sleep_for(500ms);
    r = admin({"updateTopic", "-t", kTopic, "-c", "DefaultCluster", "-r", std::to_string(kQueues), "-w",
               std::to_string(kQueues)});
  } while (r.status != 0 && std::chrono::steady_clock::now() < created_by);
  ASSERT_EQ(r.status, 0) << r.output;
  int first = -1;
  for (auto until = std::chrono::steady_clock::now() + 30s; first < 0 && std::chrono::steady_clock::now() < until;) {
    first = routed_master(client);
    if (first < 0) std::this_thread::sleep_for(200ms);
  }
  ASSERT_GE(first, 0) << "no master routed";
  // Both slaves join the SyncStateSet before the load starts (every send then waits for them).
  const std::string controllers =
      fmt::format("{};{};{}", addr(controller_ports_[0]), addr(controller_ports_[1]), addr(controller_ports_[2]));
  for (auto until = std::chrono::steady_clock::now() + 60s;;) {
    r = run_to_exit(mqadmin_path(), {"getSyncStateSet", "-a", controllers, "-b", "broker-a"},
                    dir_.path() + "/sss.out", 20s);
    if (r.status == 0 && r.output.find("#SyncStateSetNums\t3") != std::string::npos) break;
    ASSERT_LT(std::chrono::steady_clock::now(), until) << r.output;
    std::this_thread::sleep_for(500ms);
  }

  KillTraffic t;
  t.rpc = &client.rpc();
  t.addr = addr(broker_ports_[first]);
  t.topic = kTopic;
  t.queues = kQueues;
  t.victim = brokers_[first]->pid();
  t.kill_after_acks = 500;
  t.stop_on_refusal = false;
  client.rt().block_on(run_kill_traffic(&t, &client.rt(), 8));
  const auto killed_at = std::chrono::steady_clock::now();
  ASSERT_TRUE(t.killed) << "only " << t.acks << " acks";
  auto st = brokers_[first]->wait(5s);
  ASSERT_TRUE(st.has_value());

  // With no operator: another broker is elected and takes a write.
  int second = -1;
  SendOutcome sent;
  for (auto until = killed_at + 90s; std::chrono::steady_clock::now() < until;) {
    second = routed_master(client);
    if (second >= 0 && second != first) {
      sent = client.send_now(addr(broker_ports_[second]), kTopic, 0, "after-failover");
      if (sent.code == 0) break;
    }
    std::this_thread::sleep_for(100ms);
  }
  ASSERT_TRUE(second >= 0 && second != first) << "no new master routed";
  ASSERT_EQ(sent.code, 0) << sent.error;
  const double failover_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - killed_at).count();
  std::printf("failover on real daemons: kill -9 -> first acknowledged send on the new master %.2f s\n", failover_s);

  // Every acknowledged message is on the new master at its queue offset.
  std::map<std::pair<std::int32_t, std::int64_t>, std::string> on_master;
  for (int q = 0; q < kQueues; ++q) {
    for (const PulledMessage& m : client.pull_all(addr(broker_ports_[second]), kTopic, q)) on_master[{q, m.queue_offset}] = m.body;
  }
  std::size_t missing = 0;
  for (const auto& [pos, body] : t.acked) {
    auto it = on_master.find(pos);
    if (it == on_master.end() || it->second != body) {
      if (++missing <= 5) ADD_FAILURE() << "acknowledged q" << pos.first << "@" << pos.second << " " << body << " not on the new master";
    }
  }
  EXPECT_EQ(missing, 0u) << "of " << t.acked.size() << " acknowledged";
  EXPECT_GE(t.acked.size(), 500u);

  // The old master, started again on its old store, is a slave: it refuses writes and serves
  // what the new master holds, the send after the failover included.
  start_broker(first);
  std::size_t found = 0;
  for (auto until = std::chrono::steady_clock::now() + 60s; std::chrono::steady_clock::now() < until;) {
    found = 0;
    for (int q = 0; q < kQueues; ++q) {
      for (const PulledMessage& m : client.pull_all(addr(broker_ports_[first]), kTopic, q)) {
        auto it = on_master.find({q, m.queue_offset});
        if (it != on_master.end() && it->second == m.body) ++found;
        if (q == 0 && m.queue_offset == sent.queue_offset && m.body == "after-failover") ++found;
      }
    }
    if (found == on_master.size() + 1) break;
    std::this_thread::sleep_for(500ms);
  }
  EXPECT_EQ(found, on_master.size() + 1) << "the old master does not serve the new master's log\n" << brokers_[first]->output();
  EXPECT_NE(client.send_now(addr(broker_ports_[first]), kTopic, 0, "to-the-old-master").code, 0)
      << "the old master took a write";
  EXPECT_EQ(routed_master(client), second);

  // mqadmin getBrokerEpoch: every broker of the group lists the same epochs (RocketMQ's lines),
  // at least the first master's and the new one's.
  r = admin({"getBrokerEpoch", "-b", "broker-a"});
  ASSERT_EQ(r.status, 0) << r.output;
  std::vector<std::string> per_broker;
  std::size_t at = 0;
  while ((at = r.output.find("#brokerAddr\t", at)) != std::string::npos) {
    const std::size_t next = r.output.find("#brokerAddr\t", at + 1);
    const std::string block = r.output.substr(at, next == std::string::npos ? std::string::npos : next - at);
    std::string epochs;  // "epoch=1, startOffset=0" of each entry
    for (std::size_t e = block.find("EpochEntry{"); e != std::string::npos; e = block.find("EpochEntry{", e + 1)) {
      const std::size_t end = block.find(", endOffset", e);
      epochs += block.substr(e + 11, end - e - 11) + ";";
    }
    per_broker.push_back(epochs);
    at += 1;
  }
  ASSERT_EQ(per_broker.size(), 3u) << r.output;
  EXPECT_EQ(per_broker[0].rfind("epoch=1, startOffset=0;", 0), 0u) << r.output;
  EXPECT_NE(per_broker[0].find("epoch=2, "), std::string::npos) << r.output;
  EXPECT_EQ(per_broker[1], per_broker[0]) << r.output;
  EXPECT_EQ(per_broker[2], per_broker[0]) << r.output;
}

}  // namespace
}  // namespace ferry::daemons_test
