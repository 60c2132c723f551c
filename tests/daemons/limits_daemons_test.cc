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
#include <thread>

#include "remoting/request_code.h"
#include "tests/daemons/daemon_process.h"
#include "tests/daemons/wire_client.h"
#include "tests/support/proc_status.h"
#include "tests/support/requests.h"
#include "tests/support/wire_conn.h"

namespace ferry::daemons_test {
namespace {

using namespace std::chrono_literals;
namespace rc = remoting::request_code;

constexpr auto kReady = 15s;     // start-up bound
constexpr auto kEventually = 15s;  // generous bound for something the daemon does by itself
constexpr auto kCall = 5s;       // one request on a raw connection
constexpr auto kConnect = 5s;

using ferry::testing::reply_code;
using ferry::testing::reply_text;
using ferry::testing::WireClock;
using ferry::testing::WireConn;

remoting::RemotingCommand runtime_info_request() { return ferry::testing::plain_request(rc::GET_BROKER_RUNTIME_INFO); }

// A raw connection to 127.0.0.1:`port`; connected() is false when connecting failed (`error`
// says why).
WireConn connect_to(std::uint16_t port, std::string* error = nullptr) {
  WireConn c;
  if (Status st = c.connect(ferry::testing::loopback_addr(port), kConnect); !st.ok() && error != nullptr) {
    *error = st.error().to_string();
  }
  return c;
}

// How many times `needle` occurs in `text`.
std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
  return n;
}

// /proc figures of a daemon, -1 when unreadable (the tests assert they are positive).
std::int64_t rss_anon_kib(pid_t pid) { return ferry::testing::rss_anon_kib(pid).value_or(-1); }
std::int64_t open_fd_count(pid_t pid) { return ferry::testing::open_fd_count(pid).value_or(-1); }

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
    std::string error;
    WireConn probe = connect_to(broker_port_, &error);
    ASSERT_TRUE(probe.connected()) << error;
    const auto reply = probe.call(runtime_info_request(), kCall);
    EXPECT_EQ(reply_code(reply), 0) << reply_text(reply);
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
  std::vector<WireConn> held;
  for (int i = 1; i < kCap; ++i) {
    std::string error;
    held.push_back(connect_to(broker_port_, &error));
    ASSERT_TRUE(held.back().connected()) << error;
    const auto reply = held.back().call(runtime_info_request(), kCall);
    ASSERT_EQ(reply_code(reply), 0) << "connection " << i + 1 << ": " << reply_text(reply);
  }
  // Over the cap: the kernel completes the handshake, the broker closes the connection at once.
  constexpr int kOver = 4;
  for (int i = 0; i < kOver; ++i) {
    std::string error;
    WireConn over = connect_to(broker_port_, &error);
    ASSERT_TRUE(over.connected()) << error;
    EXPECT_TRUE(over.closed_by_peer(kEventually)) << "connection " << kCap + 1 + i << " over the cap stayed open";
  }
  // Everyone connected before is still served.
  const SendOutcome s = client.send_now(broker_addr(), "T", 0, "during");
  EXPECT_EQ(s.code, 0) << s.error;
  const std::vector<PulledMessage> got = client.pull_all(broker_addr(), "T", 0);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[1].body, "during");
  for (WireConn& c : held) {
    const auto reply = c.call(runtime_info_request(), kCall);
    EXPECT_EQ(reply_code(reply), 0) << reply_text(reply);
  }

  // Three leave; a new connection is served once the broker has seen them go.
  for (int i = 0; i < 3; ++i) held.pop_back();
  EXPECT_TRUE(eventually([&] {
    WireConn fresh = connect_to(broker_port_);
    return fresh.connected() && reply_code(fresh.call(runtime_info_request(), 2s)) == 0;
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
    held.push_back(connect_to(broker_port_));
    const auto reply = held.back().call(runtime_info_request(), kCall);
    ASSERT_EQ(reply_code(reply), 0) << reply_text(reply);
  }
  {
    WireConn over = connect_to(broker_port_);
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
  std::string silent_error;
  std::string talker_error;
  WireConn silent = connect_to(broker_port_, &silent_error);
  WireConn talker = connect_to(broker_port_, &talker_error);
  ASSERT_TRUE(silent.connected() && talker.connected()) << silent_error << talker_error;
  for (int i = 0; i < 6; ++i) {  // three idle timeouts
    const auto reply = talker.call(runtime_info_request(), kCall);
    ASSERT_EQ(reply_code(reply), 0) << "request " << i << ": " << reply_text(reply);
    std::this_thread::sleep_for(1s);
  }
  EXPECT_TRUE(silent.closed_by_peer(kEventually)) << "a silent connection stayed open\n" << broker_log();
  const auto last = talker.call(runtime_info_request(), kCall);
  EXPECT_EQ(reply_code(last), 0) << reply_text(last);
  const std::string log = broker_log();
  EXPECT_EQ(count_of(log, "(serverChannelMaxIdleTimeSeconds)"), 1u) << log;
}

TEST_F(LimitsTest, NameServerClosesAConnectionThatNeverSpeaksAndKeepsOneThatDoes) {
  const std::uint16_t port = free_port();
  write_file(dir_ / "ns.conf", "listenPort=" + std::to_string(port) + "\ndataDir=" + (dir_ / "ns") +
                                   "\nserverChannelMaxIdleTimeSeconds=2\n");
  Child ns(mqnamesrv_path(), {"-c", dir_ / "ns.conf"}, dir_ / "ns.out");
  ASSERT_TRUE(wait_for_port(port, kReady)) << ns.output();
  std::string silent_error;
  std::string talker_error;
  WireConn silent = connect_to(port, &silent_error);
  WireConn talker = connect_to(port, &talker_error);
  ASSERT_TRUE(silent.connected() && talker.connected()) << silent_error << talker_error;
  for (int i = 0; i < 6; ++i) {
    const auto reply = talker.call(ferry::testing::plain_request(rc::GET_ALL_TOPIC_LIST_FROM_NAMESERVER), kCall);
    ASSERT_EQ(reply_code(reply), 0) << "request " << i << ": " << reply_text(reply);
    std::this_thread::sleep_for(1s);
  }
  EXPECT_TRUE(silent.closed_by_peer(kEventually)) << "a silent connection stayed open\n" << ns.output();
  const auto last = talker.call(ferry::testing::plain_request(rc::GET_ALL_TOPIC_LIST_FROM_NAMESERVER), kCall);
  EXPECT_EQ(reply_code(last), 0) << reply_text(last);
  EXPECT_NE(read_file(dir_ / "ns/logs/namesrv.log").find("(serverChannelMaxIdleTimeSeconds)"), std::string::npos);
}

// A peer that sends pulls with ~2 MiB replies and never reads them. Unbounded, the broker would
// hold every reply; bounded (docs/operations.md, Limits), it stops reading the connection while
// 64 MiB of replies back up, so its anonymous memory grows by about that much. Meanwhile another
// connection is served. A second slow peer, after the first closed, peaks no higher (what the
// first one's replies held was freed and reused, not leaked), and the broker serves after both.
TEST_F(LimitsTest, APeerThatNeverReadsItsRepliesHoldsBoundedMemory) {
  constexpr int kMessages = 32;             // one pull's worth (maxMsgNums 32)
  constexpr std::size_t kBodyBytes = 64'000;  // under maxMessageSize 65536 with the properties
  constexpr int kSlowRequests = 512;
  constexpr std::int64_t kMiB = 1024 * 1024;
  constexpr std::int64_t kWriteQueueBytesMax = 64 * kMiB;  // RpcOptions::write_queue_bytes_max
  // The CommitLog in one 64 MiB file, and a pull may carry all 32 messages (2 MiB).
  start_broker("mappedFileSizeCommitLog=67108864\nmaxTransferBytesOnMessageInMemory=4194304\n");
  WireClient client(dir_ / "client");
  for (int i = 0; i < kMessages; ++i) {
    const SendOutcome s = client.send_now(broker_addr(), "Big", 0, std::string(kBodyBytes, static_cast<char>('a' + i % 26)));
    ASSERT_EQ(s.code, 0) << s.error;
  }
  // One reply's size, and a warm-up (the allocator's pools for such replies exist before the
  // baseline).
  std::string probe_error;
  WireConn probe = connect_to(broker_port_, &probe_error);
  ASSERT_TRUE(probe.connected()) << probe_error;
  std::int64_t reply_bytes = 0;
  for (int i = 0; i < 4; ++i) {
    auto reply = probe.call(make_pull_request("Big", 0, 0), kCall);  // the body counted, not kept
    ASSERT_TRUE(reply.ok()) << reply.error().to_string();
    ASSERT_EQ(reply->command.code, 0);
    reply_bytes = static_cast<std::int64_t>(reply->body_bytes);
  }
  ASSERT_GE(reply_bytes, kMessages * static_cast<std::int64_t>(kBodyBytes));
  probe.close();
  ASSERT_EQ(client.send_now(broker_addr(), "Small", 0, "warm").code, 0);
  const std::int64_t base_kib = rss_anon_kib(broker_->pid());
  ASSERT_GT(base_kib, 0);

  // The bound: 64 MiB of replies queued or waiting for queue space, plus the one reply that
  // crossed it (reading stops only once the queue is full), plus a margin of 32 MiB for what is
  // not a reply: the reply being built, the read buffer, the requests read but not served, the
  // ordinary client's traffic and the allocator's slack. The operations.md bound has one more
  // term, parked long-polling pulls woken together; these pulls find messages and never park.
  const std::int64_t bound = kWriteQueueBytesMax + reply_bytes + 32 * kMiB;

  // Two slow peers, one after the other: the second must find the memory the first one's
  // replies held free again (a leak would add up).
  std::int64_t first_peak_kib = 0;
  for (int peer = 1; peer <= 2; ++peer) {
    // The slow peer's requests (~300 bytes each) fit the TCP buffers: all are sent.
    std::string slow_error;
    WireConn slow = connect_to(broker_port_, &slow_error);
    ASSERT_TRUE(slow.connected()) << slow_error;
    int sent = 0;
    for (; sent < kSlowRequests; ++sent) {
      const Result<std::int32_t> written = slow.send(make_pull_request("Big", 0, 0), WireClock::now() + 10s);
      if (!written.ok()) {
        slow_error = written.error().to_string();
        break;
      }
    }
    EXPECT_EQ(sent, kSlowRequests) << slow_error;
    const std::int64_t unbounded_bytes = sent * reply_bytes;

    // While it is stuck: another connection sends and pulls, and the broker's memory is sampled.
    std::int64_t peak_kib = base_kib;
    const std::size_t before = client.pull_all(broker_addr(), "Small", 0).size();
    std::vector<std::string> served;
    for (int round = 0; round < 30; ++round) {
      peak_kib = std::max(peak_kib, rss_anon_kib(broker_->pid()));
      const std::string body = "small-" + std::to_string(peer) + "-" + std::to_string(round);
      const SendOutcome s = client.send_now(broker_addr(), "Small", 0, body);
      ASSERT_EQ(s.code, 0) << "round " << round << ": " << s.error;
      served.push_back(body);
      std::this_thread::sleep_for(100ms);
    }
    peak_kib = std::max(peak_kib, rss_anon_kib(broker_->pid()));
    const std::vector<PulledMessage> got = client.pull_all(broker_addr(), "Small", 0);
    ASSERT_EQ(got.size(), before + served.size());
    EXPECT_EQ(got.back().body, served.back());

    const std::int64_t growth = (peak_kib - base_kib) * 1024;
    std::printf("[ figures  ] slow reader %d: %d pulls of %.2f MiB replies never read, unbounded %.0f MiB; RssAnon "
                "%.1f -> peak %.1f MiB, growth %.1f MiB (bound %.0f MiB)\n",
                peer, sent, static_cast<double>(reply_bytes) / kMiB, static_cast<double>(unbounded_bytes) / kMiB,
                static_cast<double>(base_kib) / 1024, static_cast<double>(peak_kib) / 1024,
                static_cast<double>(growth) / kMiB, static_cast<double>(bound) / kMiB);
    EXPECT_LT(growth, bound) << "the broker holds replies the peer does not read";
    EXPECT_LT(bound, unbounded_bytes / 4) << "the test would not tell bounded from unbounded";
    if (peer == 1) {
      first_peak_kib = peak_kib;
    } else {
      EXPECT_LT(peak_kib - first_peak_kib, 16 * 1024) << "the second slow peer added to the first one's memory";
    }
    slow.close();  // its replies are dropped
  }
  expect_broker_serves();
  const SendOutcome s = client.send_now(broker_addr(), "Small", 0, "after");
  EXPECT_EQ(s.code, 0) << s.error;
  EXPECT_EQ(client.pull_all(broker_addr(), "Big", 0).size(), static_cast<std::size_t>(kMessages));
}

// A broker with a hard limit of 128 descriptors. Raw connections use up what start-up left;
// then accept fails and backs off (a count of failures, not a busy loop), and a client connected
// before sends to a new topic, whose ConsumeQueue file cannot be created: the send that wrote the
// record stands, later sends are refused naming indexing, and the broker does not crash. Once
// the connections close, the retry indexes the record, sends succeed, and every acknowledged
// message is read back.
TEST_F(LimitsTest, ABrokerOutOfDescriptorsBacksOffRefusesWritesAndRecovers) {
  constexpr std::uint64_t kLimit = 128;
  ChildOptions limited;
  limited.open_files_limit = kLimit;
  start_broker("", limited);
  const pid_t pid = broker_->pid();
  EXPECT_TRUE(eventually([&] {
    return broker_->output().find("open files: soft limit 128 (hard 128); below the 65536 recommended") !=
           std::string::npos;
  })) << broker_->output();

  WireClient client(dir_ / "client");  // connected before the descriptors run out
  std::map<std::pair<std::string, std::int32_t>, std::vector<std::string>> acked;
  auto send = [&](const std::string& topic, std::int32_t queue, const std::string& body) {
    const SendOutcome s = client.send_now(broker_addr(), topic, queue, body);
    if (s.code == 0) acked[{topic, queue}].push_back(body);
    return s;
  };
  ASSERT_EQ(send("Warm", 0, "warm-0").code, 0);
  const std::int64_t fds_at_start = open_fd_count(pid);
  ASSERT_GT(fds_at_start, 0);
  ASSERT_LT(fds_at_start, static_cast<std::int64_t>(kLimit) - 16) << "start-up left too few descriptors to test";

  // Use up the rest, plus some that stay in the listen backlog (accepted by the kernel, not by
  // the broker) so that accept keeps failing.
  struct rlimit own {};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &own), 0);
  ASSERT_GT(own.rlim_cur, 2 * kLimit) << "the test process needs descriptors too";
  std::vector<WireConn> raw;
  const std::int64_t to_open = static_cast<std::int64_t>(kLimit) - fds_at_start + 8;
  for (std::int64_t i = 0; i < to_open; ++i) {
    std::string error;
    raw.push_back(connect_to(broker_port_, &error));
    ASSERT_TRUE(raw.back().connected()) << i << ": " << error;
  }
  const std::string accept_failed = "accept on " + broker_addr() + " failed (";
  ASSERT_TRUE(eventually([&] { return count_of(broker_->output(), accept_failed) >= 1; })) << broker_->output();
  const std::int64_t fds_exhausted = open_fd_count(pid);
  EXPECT_NE(broker_->output().find(accept_failed + "1 failures so far; next try in 10 ms): "), std::string::npos)
      << broker_->output();

  // A new topic: its ConsumeQueue file needs a descriptor there is none of.
  const SendOutcome first = send("Fresh", 0, "fresh-0");
  EXPECT_TRUE(first.code == 0 || first.code == 14) << first.code << " " << first.error;
  const SendOutcome refused = send("Warm", 0, "refused");
  EXPECT_EQ(refused.code, 14) << refused.error;
  EXPECT_NE(refused.error.find("indexing the CommitLog at offset"), std::string::npos) << refused.error;
  EXPECT_TRUE(broker_->running()) << broker_->output();

  // Accept backs off: the second report (10 s after the first) counts the failures since start.
  ASSERT_TRUE(eventually([&] { return count_of(broker_->output(), accept_failed) >= 2; }, 30s)) << broker_->output();
  const std::string out = broker_->output();
  const std::size_t second = out.find(accept_failed, out.find(accept_failed) + 1);
  const long failures = std::strtol(out.c_str() + second + accept_failed.size(), nullptr, 10);
  // With the back-off (10 ms doubling to 1 s), about 17 failures in those 10 s; a busy loop
  // would fail hundreds of thousands of times.
  EXPECT_GE(failures, 2);
  EXPECT_LE(failures, 100) << "accept failures are a busy loop";

  // Descriptors come back: the retry indexes the record, writes are taken again.
  raw.clear();
  EXPECT_TRUE(eventually([&] { return send("Warm", 0, "after-" + std::to_string(acked.size())).code == 0; }, 30s))
      << broker_->output();
  EXPECT_NE(broker_->output().find("indexing caught up at CommitLog offset"), std::string::npos) << broker_->output();
  // The topic table, which could not be written either, is retried too (not only on the next
  // topic change): the restart below needs it.
  EXPECT_TRUE(eventually([&] {
    return broker_->output().find("topics: persisted config/topics.json after") != std::string::npos;
  })) << broker_->output();
  ASSERT_EQ(send("Fresh", 0, "fresh-1").code, 0);
  ASSERT_EQ(send("Fresh", 1, "fresh-q1").code, 0);
  for (const auto& [where, bodies] : acked) {
    const std::vector<PulledMessage> got = client.pull_all(broker_addr(), where.first, where.second);
    std::vector<std::string> read;
    for (const PulledMessage& m : got) read.push_back(m.body);
    EXPECT_EQ(read, bodies) << where.first << " queue " << where.second;
  }
  expect_broker_serves();

  // And after a crash: the topic created while descriptors were out is still known, every
  // acknowledged message is read back.
  broker_->signal(SIGKILL);
  ASSERT_TRUE(broker_->wait(kEventually).has_value());
  broker_ = std::make_unique<Child>(mqbroker_path(), std::vector<std::string>{"-c", dir_ / "broker.conf"},
                                    dir_ / "broker-restarted.out");
  ASSERT_TRUE(wait_for_port(broker_port_, kReady)) << broker_->output();
  WireClient reader(dir_ / "reader");
  for (const auto& [where, bodies] : acked) {
    const std::vector<PulledMessage> got = reader.pull_all(broker_addr(), where.first, where.second);
    std::vector<std::string> read;
    for (const PulledMessage& m : got) read.push_back(m.body);
    EXPECT_EQ(read, bodies) << where.first << " queue " << where.second << " after a restart";
  }
  std::printf("[ figures  ] open files: hard limit %llu, %lld descriptors after start-up, %lld raw connections, %lld "
              "descriptors when exhausted; %ld accept failures by the second report (10 s after the first); first send to a new "
              "topic: code %d\n",
              static_cast<unsigned long long>(kLimit), static_cast<long long>(fds_at_start),
              static_cast<long long>(to_open), static_cast<long long>(fds_exhausted), failures, first.code);
}

}  // namespace
}  // namespace ferry::daemons_test
