// mqnamesrv and mqbroker as real processes on 127.0.0.1: start, send and pull with real frames,
// kill -9 under SYNC_FLUSH and recover (read back with the client library's push consumer),
// SIGTERM keeps committed offsets, bad config files and flags, a port in use. Every test has its
// own temp dir and free ports and kills what it started.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <thread>

#include "tests/daemons/client_node.h"
#include "tests/daemons/daemon_process.h"
#include "tests/daemons/kill_traffic.h"
#include "tests/daemons/wire_client.h"

namespace ferry::daemons_test {
namespace {

using namespace std::chrono_literals;

constexpr auto kReady = 15s;  // start-up bound (a store recovery included)
constexpr auto kExit = 15s;   // graceful-stop bound

class DaemonsTest : public ::testing::Test {
 protected:
  std::string ns_addr() const { return "127.0.0.1:" + std::to_string(ns_port_); }
  std::string broker_addr() const { return "127.0.0.1:" + std::to_string(broker_port_); }

  void start_namesrv() {
    ns_port_ = free_port();
    namesrv_ = spawn_namesrv(dir_, ns_port_);
    ASSERT_TRUE(wait_for_port(ns_port_, kReady)) << namesrv_->output();
  }

  // Writes broker.conf (the base keys plus `extra`) and returns its path.
  std::string broker_conf(const std::string& extra) {
    if (broker_port_ == 0) broker_port_ = free_broker_port();
    const std::string path = dir_ / "broker.conf";
    write_file(path, "brokerClusterName=TestCluster\nbrokerName=broker-a\nbrokerId=0\nlistenPort=" +
                         std::to_string(broker_port_) + "\nstorePathRootDir=" + (dir_ / "store") +
                         "\nmappedFileSizeCommitLog=1048576\nmaxMessageSize=65536\n" + extra);
    return path;
  }

  void start_broker(const std::string& conf) {
    std::vector<std::string> args{"-c", conf};
    if (ns_port_ != 0) args.insert(args.end(), {"-n", ns_addr()});
    broker_ = std::make_unique<Child>(mqbroker_path(), args, dir_ / "broker.out");
    ASSERT_TRUE(wait_for_port(broker_port_, kReady)) << broker_->output();
  }

  void stop_gracefully(std::unique_ptr<Child>& c) {
    c->signal(SIGTERM);
    auto st = c->wait(kExit);
    ASSERT_TRUE(st.has_value()) << "did not stop within the bound\n" << c->output();
    EXPECT_EQ(*st, 0) << c->output();
  }

  TempDir dir_;
  std::uint16_t ns_port_ = 0;
  std::uint16_t broker_port_ = 0;
  std::unique_ptr<Child> namesrv_;
  std::unique_ptr<Child> broker_;
};

TEST_F(DaemonsTest, SendPullAndRoutesThenGracefulStop) {
  start_namesrv();
  start_broker(broker_conf(""));
  WireClient client(dir_ / "client");
  for (int i = 0; i < 20; ++i) {
    const SendOutcome s = client.send_now(broker_addr(), "T", i % 2, "hello-" + std::to_string(i));
    ASSERT_EQ(s.code, 0) << s.error;
    EXPECT_EQ(s.queue_id, i % 2);
    EXPECT_EQ(s.queue_offset, i / 2);
  }
  for (int q = 0; q < 2; ++q) {
    const auto got = client.pull_all(broker_addr(), "T", q);
    ASSERT_EQ(got.size(), 10u);
    for (int k = 0; k < 10; ++k) {
      EXPECT_EQ(got[k].queue_offset, k);
      EXPECT_EQ(got[k].body, "hello-" + std::to_string(k * 2 + q));
    }
  }
  // The broker registers the new topic with the NameServer (at once on a topic change).
  std::string route;
  int code = -1;
  for (int i = 0; i < 100 && code != 0; ++i, std::this_thread::sleep_for(50ms)) code = client.route(ns_addr(), "T", &route);
  ASSERT_EQ(code, 0);
  EXPECT_NE(route.find(broker_addr()), std::string::npos) << route;

  stop_gracefully(broker_);
  // Unregistered: the NameServer no longer knows the topic.
  EXPECT_EQ(client.route(ns_addr(), "T"), 17);
  EXPECT_FALSE(std::filesystem::exists(dir_ / "store/abort"));
  EXPECT_TRUE(std::filesystem::exists(dir_ / "store/logs/broker.log"));
  // Both daemons raised their descriptor limit at start and said so.
  const std::string broker_log = read_file(dir_ / "store/logs/broker.log");
  EXPECT_NE(broker_log.find("open files: soft limit"), std::string::npos) << broker_log;
  stop_gracefully(namesrv_);
  EXPECT_TRUE(std::filesystem::exists(dir_ / "ns/logs/namesrv.log"));
  const std::string ns_log = read_file(dir_ / "ns/logs/namesrv.log");
  EXPECT_NE(ns_log.find("open files: soft limit"), std::string::npos) << ns_log;
}

// Senders keep 8 sends in flight; after enough acknowledgements the broker is SIGKILLed. After a
// restart a push consumer of a new group (Ferry's client library, from the first offset) receives
// every acknowledged message at its queue offset with its body.
TEST_F(DaemonsTest, SyncFlushBrokerKilledMidTrafficKeepsEveryAcknowledgedMessage) {
  start_namesrv();  // the consumer finds the broker through it
  const std::string conf = broker_conf("flushDiskType=SYNC_FLUSH\nmappedFileSizeCommitLog=131072\n");
  start_broker(conf);
  {
    WireClient client(dir_ / "client");
    KillTraffic t;
    t.rpc = &client.rpc();
    t.addr = broker_addr();
    t.topic = "T";
    t.victim = broker_->pid();
    t.kill_after_acks = 1500;
    client.rt().block_on(run_kill_traffic(&t, &client.rt(), 8));
    ASSERT_TRUE(t.killed) << "only " << t.acks << " acks";
    ASSERT_GE(t.acked.size(), 1500u);
    auto st = broker_->wait(5s);
    ASSERT_TRUE(st.has_value());
    EXPECT_EQ(*st, 128 + SIGKILL);
    EXPECT_TRUE(std::filesystem::exists(dir_ / "store/abort"));  // an unclean stop

    start_broker(conf);  // recovery from the abort file
    ClientNode consumer(dir_ / "consumer", {ns_addr()}, "recover-reader");
    client::PushConsumerConfig pc;
    pc.group = "RecoverG";
    pc.consume_from_where = client::ConsumeFromWhere::CONSUME_FROM_FIRST_OFFSET;
    Result<std::shared_ptr<Received>> got = consumer.start_consumer(pc, "T", "*");
    ASSERT_TRUE(got.ok()) << got.error().to_string();
    std::map<std::pair<std::int32_t, std::int64_t>, std::string> stored;
    auto covers_acked = [&](const std::vector<MessageExt>& msgs) {
      stored.clear();
      for (const MessageExt& m : msgs) {
        stored[{m.queue_id.value(), m.queue_offset.value()}] = std::string(m.body.begin(), m.body.end());
      }
      for (const auto& [pos, body] : t.acked) {
        if (stored.count(pos) == 0) return false;
      }
      return true;
    };
    // Bounded: a message that never comes fails the comparison below.
    (*got)->wait_until(covers_acked, 30s);
    covers_acked((*got)->snapshot());
    std::size_t missing = 0;
    for (const auto& [pos, body] : t.acked) {
      auto it = stored.find(pos);
      if (it == stored.end() || it->second != body) {
        if (++missing <= 5) ADD_FAILURE() << "acknowledged q" << pos.first << "@" << pos.second << " " << body << " lost";
      }
    }
    EXPECT_EQ(missing, 0u) << "of " << t.acked.size() << " acknowledged; " << stored.size() << " stored";
    // The restarted broker takes new writes after the recovered tail.
    WireClient writer(dir_ / "writer");
    const SendOutcome s = writer.send_now(broker_addr(), "T", 0, "after-restart");
    ASSERT_EQ(s.code, 0) << s.error;
  }
  stop_gracefully(broker_);
}

TEST_F(DaemonsTest, SigtermKeepsCommittedConsumerOffsets) {
  const std::string conf = broker_conf("flushConsumerOffsetInterval=60000\n");  // only the stop persists
  start_broker(conf);
  {
    WireClient client(dir_ / "client");
    for (int i = 0; i < 5; ++i) ASSERT_EQ(client.send_now(broker_addr(), "T", 1, "m").code, 0);
    ASSERT_EQ(client.update_offset(broker_addr(), "G1", "T", 1, 3), 0);
    EXPECT_EQ(client.query_offset(broker_addr(), "G1", "T", 1), 3);
  }
  stop_gracefully(broker_);
  const std::string offsets = read_file(dir_ / "store/config/consumerOffset.json");
  EXPECT_NE(offsets.find("T@G1"), std::string::npos) << offsets;

  start_broker(conf);
  {
    WireClient client(dir_ / "client2");
    int code = -1;
    EXPECT_EQ(client.query_offset(broker_addr(), "G1", "T", 1, &code), 3) << "code " << code;
    EXPECT_EQ(client.pull_all(broker_addr(), "T", 1).size(), 5u);
  }
  stop_gracefully(broker_);
}

TEST_F(DaemonsTest, TwoBrokersOnOnePortSayAddressInUse) {
  start_broker(broker_conf(""));
  const std::string other = dir_ / "other.conf";
  // (small files: a 1 GiB first CommitLog file is reserved before the broker listens)
  write_file(other, "listenPort=" + std::to_string(broker_port_) + "\nstorePathRootDir=" + (dir_ / "store2") +
                        "\nmappedFileSizeCommitLog=1048576\nmaxMessageSize=65536\n");
  const RunResult r = run_to_exit(mqbroker_path(), {"-c", other}, dir_ / "other.out", 15s);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("address in use: 127.0.0.1:" + std::to_string(broker_port_)), std::string::npos) << r.output;
  EXPECT_TRUE(broker_->running());
  stop_gracefully(broker_);
}

TEST_F(DaemonsTest, ATakenHaPortSaysSo) {
  // Something else listens on listenPort + 1, the broker's HA port.
  const std::uint16_t port = free_broker_port();
  const int squatter = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(squatter, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(static_cast<std::uint16_t>(port + 1));
  ASSERT_EQ(::bind(squatter, reinterpret_cast<sockaddr*>(&a), sizeof(a)), 0);
  ASSERT_EQ(::listen(squatter, 1), 0);
  const std::string conf = dir_ / "ha-taken.conf";
  write_file(conf, "listenPort=" + std::to_string(port) + "\nstorePathRootDir=" + (dir_ / "store2") +
                       "\nmappedFileSizeCommitLog=1048576\nmaxMessageSize=65536\n");
  const RunResult r = run_to_exit(mqbroker_path(), {"-c", conf}, dir_ / "ha-taken.out", 15s);
  ::close(squatter);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("address in use: 127.0.0.1:" + std::to_string(port + 1) +
                          " (another process listens there; it is the HA port, always listenPort + 1"),
            std::string::npos)
      << r.output;
}

TEST_F(DaemonsTest, TwoBrokersOnOneStoreDirAreRefused) {
  start_broker(broker_conf(""));
  const std::string other = dir_ / "other.conf";
  write_file(other, "listenPort=" + std::to_string(free_broker_port()) + "\nstorePathRootDir=" + (dir_ / "store") + "\n");
  const RunResult r = run_to_exit(mqbroker_path(), {"-c", other}, dir_ / "other.out", 15s);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("is in use by another process"), std::string::npos) << r.output;
  stop_gracefully(broker_);
}

TEST_F(DaemonsTest, TwoNameServersOnOnePortSayAddressInUse) {
  start_namesrv();
  const RunResult r = run_to_exit(mqnamesrv_path(), {"-p", std::to_string(ns_port_), "-d", dir_ / "ns2"},
                                  dir_ / "ns2.out", 15s);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("address in use"), std::string::npos) << r.output;
  stop_gracefully(namesrv_);
}

struct BadCase {
  std::string conf;          // file content
  std::string expect;        // a substring of the output
};

TEST_F(DaemonsTest, BadBrokerConfigFilesExitNonZeroNamingFileLineAndKey) {
  const std::vector<BadCase> cases = {
      {"brokerName=a\nlistenPort=abc\n", "bad.conf:2: listenPort: \"abc\" is not an integer"},
      {"brokerRole=MASTER\n", "bad.conf:1: brokerRole: \"MASTER\" is not one of"},
      {"\n\nautoCreateTopicEnable=maybe\n", "bad.conf:3: autoCreateTopicEnable: \"maybe\" is not a boolean"},
      {"flushDiskType=SYNC\n", "bad.conf:1: flushDiskType:"},
      {"listenPort 10911\n", "bad.conf:1: expected key=value"},
      {"namesrvAddr=nowhere\n", "bad.conf:1: namesrvAddr:"},
      {"fileReservedTime=-1\n", "bad.conf:1: fileReservedTime: -1 is out of range"},
  };
  for (const BadCase& c : cases) {
    const std::string path = dir_ / "bad.conf";
    write_file(path, c.conf);
    const RunResult r = run_to_exit(mqbroker_path(), {"-c", path}, dir_ / "bad.out", 10s);
    EXPECT_EQ(r.status, 1) << c.conf << r.output;
    EXPECT_NE(r.output.find(c.expect), std::string::npos) << "want: " << c.expect << "\ngot: " << r.output;
    std::filesystem::remove(dir_ / "bad.out");
  }
}

TEST_F(DaemonsTest, MissingConfigFileAndBadFlagsExitNonZero) {
  RunResult r = run_to_exit(mqbroker_path(), {"-c", dir_ / "missing.conf"}, dir_ / "a.out", 10s);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("cannot read config file " + (dir_ / "missing.conf")), std::string::npos) << r.output;

  r = run_to_exit(mqbroker_path(), {"-x"}, dir_ / "b.out", 10s);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("unknown option -x"), std::string::npos) << r.output;

  r = run_to_exit(mqbroker_path(), {"-c"}, dir_ / "c.out", 10s);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("option -c needs a value"), std::string::npos) << r.output;

  r = run_to_exit(mqbroker_path(), {"-c", broker_conf(""), "-n", "1.2.3.4"}, dir_ / "d.out", 10s);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("-n: \"1.2.3.4\" is not an IPv4 address with a port"), std::string::npos) << r.output;

  // Both daemons answer --help (and -h) with their usage, and name an unknown long option.
  for (const std::string& daemon : {mqbroker_path(), mqnamesrv_path()}) {
    for (const char* help : {"--help", "-h"}) {
      r = run_to_exit(daemon, {help}, dir_ / "help.out", 10s);
      EXPECT_EQ(r.status, 0) << daemon << " " << help << ": " << r.output;
      EXPECT_NE(r.output.find("usage: "), std::string::npos) << daemon << " " << help << ": " << r.output;
      std::filesystem::remove(dir_ / "help.out");
    }
    r = run_to_exit(daemon, {"--frobnicate"}, dir_ / "long.out", 10s);
    EXPECT_EQ(r.status, 2) << daemon << ": " << r.output;
    EXPECT_NE(r.output.find("unknown option --frobnicate"), std::string::npos) << daemon << ": " << r.output;
    std::filesystem::remove(dir_ / "long.out");
  }

  r = run_to_exit(mqnamesrv_path(), {"-p", "70000", "-d", dir_ / "ns"}, dir_ / "e.out", 10s);
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.output.find("-p: 70000 is out of range"), std::string::npos) << r.output;

  write_file(dir_ / "ns.conf", "listenPort=9876\norderMessageEnable=sometimes\n");
  r = run_to_exit(mqnamesrv_path(), {"-c", dir_ / "ns.conf"}, dir_ / "f.out", 10s);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("ns.conf:2: orderMessageEnable: \"sometimes\" is not a boolean"), std::string::npos)
      << r.output;

  r = run_to_exit(mqnamesrv_path(), {"-c", dir_ / "nope.conf"}, dir_ / "g.out", 10s);
  EXPECT_EQ(r.status, 1);
  EXPECT_NE(r.output.find("cannot read config file"), std::string::npos) << r.output;
}

TEST_F(DaemonsTest, ABadRecoverModeIsRefusedNamingTheChoices) {
  RunResult r = run_to_exit(mqbroker_path(), {"-c", broker_conf(""), "--recover=maybe"}, dir_ / "a.out", 10s);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("--recover: \"maybe\" is not one of abort|truncate|skip"), std::string::npos) << r.output;
  r = run_to_exit(mqbroker_path(), {"-c", broker_conf(""), "--recover"}, dir_ / "b.out", 10s);
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_NE(r.output.find("option --recover needs a value"), std::string::npos) << r.output;
  write_file(dir_ / "bad.conf", "recoverMode=ignore\n");
  r = run_to_exit(mqbroker_path(), {"-c", dir_ / "bad.conf"}, dir_ / "c.out", 10s);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find("bad.conf:1: recoverMode: \"ignore\" is not one of abort / truncate / skip"), std::string::npos)
      << r.output;
}

// A flipped byte in the second of three stored messages: the broker refuses to start and names
// --recover; --recover=skip starts it with the other two at their queue offsets.
TEST_F(DaemonsTest, MidLogCorruptionRefusesToStartUntilTheOperatorChoosesARecoverMode) {
  const std::string conf = broker_conf("");
  start_broker(conf);
  WireClient client(dir_ / "client");
  for (int i = 0; i < 3; ++i) {
    const SendOutcome s = client.send_now(broker_addr(), "T", 0, "hello-" + std::to_string(i));
    ASSERT_EQ(s.code, 0) << s.error;
  }
  stop_gracefully(broker_);
  {
    // The second record starts where the first one's TOTALSIZE says; its body starts at byte 88
    // of it (IPv4 hosts): flip one of its bytes.
    const std::string path = dir_ / "store/commitlog/00000000000000000000";
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    ASSERT_TRUE(f.is_open()) << path;
    unsigned char size_be[4] = {};
    f.read(reinterpret_cast<char*>(size_be), 4);
    const std::streamoff second = (size_be[0] << 24) | (size_be[1] << 16) | (size_be[2] << 8) | size_be[3];
    ASSERT_GT(second, 88);
    f.seekg(second + 90);
    char c = 0;
    f.read(&c, 1);
    ASSERT_EQ(c, 'l');
    c = static_cast<char>(c ^ 0x5A);
    f.seekp(second + 90);
    f.write(&c, 1);
  }
  const RunResult refused = run_to_exit(mqbroker_path(), {"-c", conf}, dir_ / "refused.out", kReady);
  EXPECT_EQ(refused.status, 1) << refused.output;
  EXPECT_NE(refused.output.find("CommitLog corrupt in the middle"), std::string::npos) << refused.output;
  EXPECT_NE(refused.output.find("1 valid record(s)"), std::string::npos) << refused.output;
  EXPECT_NE(refused.output.find("--recover=skip"), std::string::npos) << refused.output;

  broker_ = std::make_unique<Child>(mqbroker_path(), std::vector<std::string>{"-c", conf, "--recover=skip"},
                                    dir_ / "skip.out");
  ASSERT_TRUE(wait_for_port(broker_port_, kReady)) << broker_->output();
  WireClient after(dir_ / "client-after");  // the first one's connection died with the broker
  const auto got = after.pull_all(broker_addr(), "T", 0);
  ASSERT_EQ(got.size(), 2u) << broker_->output();
  EXPECT_EQ(got[0].queue_offset, 0);
  EXPECT_EQ(got[0].body, "hello-0");
  EXPECT_EQ(got[1].queue_offset, 2);
  EXPECT_EQ(got[1].body, "hello-2");
  stop_gracefully(broker_);
  EXPECT_NE(read_file(dir_ / "store/logs/broker.log").find("recoverMode=skip"), std::string::npos);
}

TEST_F(DaemonsTest, UnknownKeysAreWarnedByName) {
  start_broker(broker_conf("brokerNmae=typo\npullMessageThreadPoolNums=8\n"));
  stop_gracefully(broker_);
  const std::string out = read_file(dir_ / "broker.out");
  EXPECT_NE(out.find("broker.conf:8: unknown key brokerNmae ignored"), std::string::npos) << out;
  EXPECT_NE(out.find("pullMessageThreadPoolNums is ignored"), std::string::npos) << out;
}

}  // namespace
}  // namespace ferry::daemons_test
