// The server's resource limits against real daemons on 127.0.0.1 (docs/operations.md, Limits):
// the connection cap (maxConnections), the idle timeout (serverChannelMaxIdleTimeSeconds) of the
// broker and the NameServer, a peer that never reads its replies (the broker's anonymous memory
// stays bounded), and a broker that runs out of file descriptors (accept backs off, indexing
// fails and is retried, nothing acknowledged is lost). Each test has its own temp dir and free
// ports and kills what it started. Waits are generous bounds for something to happen; what is
// asserted is counts, codes, log lines and memory bounds, never how long something took.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <regex>
#include <thread>

#include "remoting/request_code.h"
#include "tests/daemons/daemon_process.h"
#include "tests/daemons/raw_conn.h"
#include "tests/daemons/wire_client.h"

namespace ferry::daemons_test {
namespace {

using namespace std::chrono_literals;
namespace rc = remoting::request_code;

constexpr auto kReady = 15s;     // start-up bound
constexpr auto kEventually = 15s;  // generous bound for something the daemon does by itself

remoting::RemotingCommand runtime_info_request() { return remoting::make_request(rc::GET_BROKER_RUNTIME_INFO, 0); }

// Polls `done` every 50 ms until it holds or `timeout` passes; its last answer.
template <typename F>
bool eventually(F done, std::chrono::milliseconds timeout = kEventually) {
  const auto end = std::chrono::steady_clock::now() + timeout;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= end) return done();
    std::this_thread::sleep_for(50ms);
  }
  return true;
}

class LimitsTest : public ::testing::Test {
 protected:
  std::string broker_addr() const { return "127.0.0.1:" + std::to_string(broker_port_); }
  std::string broker_log() const { return read_file(dir_ / "store/logs/broker.log"); }

  // A broker (no NameServer) with the base keys of daemons_test plus `extra`.
  void start_broker(const std::string& extra, ChildOptions options = {}) {
    broker_port_ = free_broker_port();
    const std::string conf = dir_ / "broker.conf";
    write_file(conf, "brokerClusterName=TestCluster\nbrokerName=broker-a\nbrokerId=0\nlistenPort=" +
                         std::to_string(broker_port_) + "\nstorePathRootDir=" + (dir_ / "store") +
                         "\nmappedFileSizeCommitLog=1048576\nmaxMessageSize=65536\n" + extra);
    broker_ = std::make_unique<Child>(mqbroker_path(), std::vector<std::string>{"-c", conf}, dir_ / "broker.out",
                                      options);
    ASSERT_TRUE(wait_for_port(broker_port_, kReady)) << broker_->output();
  }

  // The broker is alive and answers a new connection.
  void expect_broker_serves() {
    ASSERT_TRUE(broker_->running()) << broker_->output();
    RawConn probe(broker_port_);
    ASSERT_TRUE(probe.valid()) << probe.error();
    EXPECT_EQ(probe.call(runtime_info_request()), 0) << probe.error();
  }

  TempDir dir_;
  std::uint16_t broker_port_ = 0;
  std::unique_ptr<Child> broker_;
};

// A config value out of range stops either daemon, naming file, line and key.
TEST_F(LimitsTest, BadServerKeysAreRefusedNamingFileLineAndKey) {
  write_file(dir_ / "bad.conf", "listenPort=10911\nmaxConnections=0\n");
  RunResult r = run_to_exit(mqbroker_path(), {"-c", dir_ / "bad.conf"}, dir_ / "a.out", 10s);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("bad.conf:2: maxConnections: 0 is out of range [1, 1048576]"), std::string::npos) << r.output;

  write_file(dir_ / "ns.conf", "serverChannelMaxIdleTimeSeconds=forever\n");
  r = run_to_exit(mqnamesrv_path(), {"-c", dir_ / "ns.conf"}, dir_ / "b.out", 10s);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("ns.conf:1: serverChannelMaxIdleTimeSeconds: \"forever\" is not an integer"), std::string::npos)
      << r.output;
}

// maxConnections=16: 16 connections are served, the 17th is closed at once (the client reads EOF)
// while the ones before are still served; after some close, a new one is served again. The log
// reports refusals once per 10 s with the count since the last line.
TEST_F(LimitsTest, ConnectionsOverTheCapAreClosedAtOnceAndTheOthersServed) {
  constexpr int kCap = 16;
  start_broker("maxConnections=" + std::to_string(kCap) + "\n");
  WireClient client(dir_ / "client");  // connection 1 of 16
  ASSERT_EQ(client.send_now(broker_addr(), "T", 0, "before").code, 0);

  // Connections 2..16, each answered (so each was accepted, in order, before the next).
  std::vector<RawConn> held;
  for (int i = 1; i < kCap; ++i) {
    held.emplace_back(broker_port_);
    ASSERT_TRUE(held.back().valid()) << held.back().error();
    ASSERT_EQ(held.back().call(runtime_info_request()), 0) << "connection " << i + 1 << ": " << held.back().error();
  }
  // Over the cap: the kernel completes the handshake, the broker closes the connection at once.
  constexpr int kOver = 4;
  for (int i = 0; i < kOver; ++i) {
    RawConn over(broker_port_);
    ASSERT_TRUE(over.valid()) << over.error();
    EXPECT_TRUE(over.closed_by_peer(kEventually)) << "connection " << kCap + 1 + i << " over the cap stayed open";
  }
  // Everyone connected before is still served.
  const SendOutcome s = client.send_now(broker_addr(), "T", 0, "during");
  EXPECT_EQ(s.code, 0) << s.error;
  const std::vector<PulledMessage> got = client.pull_all(broker_addr(), "T", 0);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[1].body, "during");
  for (RawConn& c : held) EXPECT_EQ(c.call(runtime_info_request()), 0) << c.error();

  // Three leave; a new connection is served once the broker has seen them go.
  for (int i = 0; i < 3; ++i) held.pop_back();
  EXPECT_TRUE(eventually([&] {
    RawConn fresh(broker_port_);
    return fresh.valid() && fresh.call(runtime_info_request(), 2s) == 0;
  })) << broker_->output();

  std::string log = broker_log();
  const std::string first_line = "refusing connections on " + broker_addr() + ": " + std::to_string(kCap) +
                                 " open, the cap is " + std::to_string(kCap) +
                                 " (maxConnections); 1 refused since the last report";
  EXPECT_NE(log.find(first_line), std::string::npos) << log;
  EXPECT_EQ(count_of(log, "refusing connections on"), 1u) << "one line per 10 s\n" << log;

  // Ten seconds after the first line, the next refusal is reported with the kOver - 1 unreported
  // before it.
  std::this_thread::sleep_for(10500ms);
  for (int i = 0; i < 3; ++i) {
    held.emplace_back(broker_port_);
    ASSERT_EQ(held.back().call(runtime_info_request()), 0) << held.back().error();
  }
  {
    RawConn over(broker_port_);
    EXPECT_TRUE(over.closed_by_peer(kEventually));
  }
  ASSERT_TRUE(eventually([&] { return count_of(broker_log(), "refusing connections on") == 2; })) << broker_log();
  log = broker_log();
  EXPECT_NE(log.find("(maxConnections); " + std::to_string(kOver) + " refused since the last report"), std::string::npos)
      << log;
  std::printf("[ figures  ] maxConnections=%d: %d connections refused, logged in 2 lines\n", kCap, kOver + 1);
}

// serverChannelMaxIdleTimeSeconds=2: a connection that never speaks is closed; one that sends a
// request every second meanwhile stays open and is answered every time.
TEST_F(LimitsTest, BrokerClosesAConnectionThatNeverSpeaksAndKeepsOneThatDoes) {
  start_broker("serverChannelMaxIdleTimeSeconds=2\n");
  RawConn silent(broker_port_);
  RawConn talker(broker_port_);
  ASSERT_TRUE(silent.valid() && talker.valid()) << silent.error() << talker.error();
  for (int i = 0; i < 6; ++i) {  // three idle timeouts
    ASSERT_EQ(talker.call(runtime_info_request()), 0) << "request " << i << ": " << talker.error();
    std::this_thread::sleep_for(1s);
  }
  EXPECT_TRUE(silent.closed_by_peer(kEventually)) << "a silent connection stayed open\n" << broker_log();
  EXPECT_EQ(talker.call(runtime_info_request()), 0) << talker.error();
  const std::string log = broker_log();
  EXPECT_EQ(count_of(log, "(serverChannelMaxIdleTimeSeconds)"), 1u) << log;
}

TEST_F(LimitsTest, NameServerClosesAConnectionThatNeverSpeaksAndKeepsOneThatDoes) {
  const std::uint16_t port = free_port();
  write_file(dir_ / "ns.conf", "listenPort=" + std::to_string(port) + "\ndataDir=" + (dir_ / "ns") +
                                   "\nserverChannelMaxIdleTimeSeconds=2\n");
  Child ns(mqnamesrv_path(), {"-c", dir_ / "ns.conf"}, dir_ / "ns.out");
  ASSERT_TRUE(wait_for_port(port, kReady)) << ns.output();
  RawConn silent(port);
  RawConn talker(port);
  ASSERT_TRUE(silent.valid() && talker.valid()) << silent.error() << talker.error();
  for (int i = 0; i < 6; ++i) {
    ASSERT_EQ(talker.call(remoting::make_request(rc::GET_ALL_TOPIC_LIST_FROM_NAMESERVER, 0)), 0)
        << "request " << i << ": " << talker.error();
    std::this_thread::sleep_for(1s);
  }
  EXPECT_TRUE(silent.closed_by_peer(kEventually)) << "a silent connection stayed open\n" << ns.output();
  EXPECT_EQ(talker.call(remoting::make_request(rc::GET_ALL_TOPIC_LIST_FROM_NAMESERVER, 0)), 0) << talker.error();
  EXPECT_NE(read_file(dir_ / "ns/logs/namesrv.log").find("(serverChannelMaxIdleTimeSeconds)"), std::string::npos);
}

}  // namespace
}  // namespace ferry::daemons_test
