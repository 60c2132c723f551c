// TLS between real processes on 127.0.0.1: mqnamesrv and mqbroker in RocketMQ's three
// tls.server.mode values, mqadmin as the client (--tls / --tls-config). The certificates are made
// at test time with the openssl command in the test's temp directory: a test CA, a server
// certificate it signs, and an unrelated CA whose trust must make the client refuse the server.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tests/daemons/daemon_process.h"
#include "tests/daemons/mqadmin_output.h"

namespace ferry::daemons_test {
namespace {

using namespace std::chrono_literals;

constexpr auto kReady = 15s;
constexpr auto kCommand = 60s;

std::string mqadmin_path() { return FERRY_MQADMIN_PATH; }

bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

class TlsDaemonsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // ca.pem signs server.pem and enc.pem (whose key enc.key is encrypted with "secret");
    // other-ca.pem signs nothing here.
    const std::string script =
        "set -e; cd '" + dir_.path() + "'\n"
        "openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 2 -subj /CN=ferry-test-ca\n"
        "openssl req -newkey rsa:2048 -nodes -keyout server.key -out server.csr -subj /CN=127.0.0.1\n"
        "openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 2\n"
        "openssl req -x509 -newkey rsa:2048 -nodes -keyout other-ca.key -out other-ca.pem -days 2 -subj /CN=other-ca\n"
        "openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -aes256 -pass pass:secret -out enc.key\n"
        "openssl req -new -key enc.key -passin pass:secret -out enc.csr -subj /CN=127.0.0.1\n"
        "openssl x509 -req -in enc.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out enc.pem -days 2\n";
    const RunResult made = run_to_exit("/bin/sh", {"-c", script}, dir_ / "openssl.out", kCommand);
    ASSERT_EQ(made.status, 0) << "making the test certificates failed (is the openssl command installed?):\n"
                              << made.output;
  }

  // "tls.server.*" lines for `mode` with this test's server certificate.
  std::string server_keys(const std::string& mode) const {
    return "tls.server.mode=" + mode + "\ntls.server.certPath=" + (dir_ / "server.pem") +
           "\ntls.server.keyPath=" + (dir_ / "server.key") + "\n";
  }
  // A client tls.properties that verifies the server against `ca`.
  std::string client_file(const std::string& name, const std::string& ca) const {
    const std::string path = dir_ / name;
    write_file(path, "tls.enable=true\ntls.client.authServer=true\ntls.client.trustCertPath=" + (dir_ / ca) + "\n");
    return path;
  }

  // mqnamesrv with `conf` as its namesrv.conf; "" once it listens, else why not.
  std::string start_namesrv(const std::string& conf) {
    ns_port_ = free_port();
    const std::string path = dir_ / "namesrv.conf";
    write_file(path, "listenPort=" + std::to_string(ns_port_) + "\ndataDir=" + (dir_ / "ns") + "\n" + conf);
    namesrv_ = std::make_unique<Child>(mqnamesrv_path(), std::vector<std::string>{"-c", path}, dir_ / "namesrv.out");
    if (!wait_for_port(ns_port_, kReady)) return "mqnamesrv did not come up:\n" + namesrv_->output();
    return "";
  }
  std::string start_broker(const std::string& conf) { return start_broker_as("broker", 0, conf, broker_port_, broker_); }
  // broker-a with `id` (0: master), its files named after `name`.
  std::string start_broker_as(const std::string& name, int id, const std::string& conf, std::uint16_t& port,
                              std::unique_ptr<Child>& child) {
    do {
      port = free_broker_port();
    } while (port == broker_port_ + 1 || port + 1 == broker_port_);  // a master's two ports stay apart from ours
    const std::string path = dir_ / (name + ".conf");
    write_file(path, "brokerClusterName=TestCluster\nbrokerName=broker-a\nbrokerId=" + std::to_string(id) +
                         "\nlistenPort=" + std::to_string(port) + "\nstorePathRootDir=" + (dir_ / (name + "-store")) +
                         "\nmappedFileSizeCommitLog=1048576\nmaxMessageSize=65536\nnamesrvAddr=" + ns_addr() + "\n" + conf);
    child = std::make_unique<Child>(mqbroker_path(), std::vector<std::string>{"-c", path}, dir_ / (name + ".out"));
    if (!wait_for_port(port, kReady)) return "mqbroker did not come up:\n" + child->output();
    return "";
  }

  std::string ns_addr() const { return "127.0.0.1:" + std::to_string(ns_port_); }

  RunResult admin(std::vector<std::string> args) {
    args.insert(args.end(), {"-n", ns_addr()});
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

TEST_F(TlsDaemonsTest, EnforcingServesTlsClientsAndClosesPlainOnes) {
  // The broker speaks TLS to the NameServer too, verifying it (tls.enable, tls.client.*).
  const std::string both = server_keys("enforcing") + "tls.enable=true\ntls.client.authServer=true\n" +
                           "tls.client.trustCertPath=" + (dir_ / "ca.pem") + "\n";
  ASSERT_EQ(start_namesrv(both), "");
  ASSERT_EQ(start_broker(both), "");
  const std::string tls = client_file("client.properties", "ca.pem");

  RunResult r;
  // The broker registers over TLS: wait until the NameServer lists it.
  for (int attempt = 0; attempt < 60; ++attempt) {
    r = admin({"clusterList", "--tls-config", tls});
    if (r.status == 0 && contains(r.output, "broker-a")) break;
    std::this_thread::sleep_for(500ms);
  }
  ASSERT_TRUE(contains(r.output, "broker-a")) << r.output << "\n" << broker_->output();
  r = admin({"updateTopic", "-t", "TlsT", "-c", "TestCluster", "-r", "1", "-w", "1", "--tls-config", tls});
  ASSERT_EQ(r.status, 0) << r.output;
  r = admin({"sendMessage", "-t", "TlsT", "-p", "over-tls", "--tls-config", tls});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "SEND_OK")) << r.output;
  r = admin({"consumeMessage", "-t", "TlsT", "--tls-config", tls});
  ASSERT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "over-tls")) << r.output;

  // A plain client is closed, and the NameServer says why.
  r = admin({"clusterList"});
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_TRUE(contains(namesrv_->output(), "plain (non-TLS) connection from 127.0.0.1:")) << namesrv_->output();
  EXPECT_TRUE(contains(namesrv_->output(), "refused: tls.server.mode is enforcing")) << namesrv_->output();
}

TEST_F(TlsDaemonsTest, ASlaveReplicatesFromItsMasterOverTls) {
  const std::string both = server_keys("enforcing") + "tls.enable=true\ntls.client.authServer=true\n" +
                           "tls.client.trustCertPath=" + (dir_ / "ca.pem") + "\n";
  ASSERT_EQ(start_namesrv(both), "");
  ASSERT_EQ(start_broker(both + "brokerRole=ASYNC_MASTER\n"), "");
  const std::string tls = client_file("client.properties", "ca.pem");
  RunResult r = admin({"updateTopic", "-t", "TlsHa", "-c", "TestCluster", "-r", "1", "-w", "1", "--tls-config", tls});
  for (int attempt = 0; attempt < 60 && r.status != 0; ++attempt) {  // until the master has registered
    std::this_thread::sleep_for(500ms);
    r = admin({"updateTopic", "-t", "TlsHa", "-c", "TestCluster", "-r", "1", "-w", "1", "--tls-config", tls});
  }
  ASSERT_EQ(r.status, 0) << r.output;
  std::uint16_t slave_port = 0;
  std::unique_ptr<Child> slave;
  ASSERT_EQ(start_broker_as("slave", 1, both + "brokerRole=SLAVE\n", slave_port, slave), "");
  for (int i = 0; i < 5; ++i) {
    r = admin({"sendMessage", "-t", "TlsHa", "-p", "replicated-" + std::to_string(i), "--tls-config", tls});
    ASSERT_EQ(r.status, 0) << r.output;
  }
  // The slave's HA connection to the master's HA port is TLS (enforcing there): caught up means
  // the same CommitLog offset on both and no lag.
  bool caught_up = false;
  for (int attempt = 0; attempt < 120 && !caught_up; ++attempt) {
    r = admin({"haStatus", "-c", "TestCluster", "--tls-config", tls});
    const auto rows = table_rows(r.output, "#Broker");
    caught_up = r.status == 0 && rows.size() == 2 && rows[0].size() == 8 && rows[1].size() == 8 &&
                rows[0][4] == rows[1][4] && rows[0][4] != "0" && rows[1][5] == "0";
    if (!caught_up) std::this_thread::sleep_for(500ms);
  }
  EXPECT_TRUE(caught_up) << r.output << "\n" << slave->output();
  EXPECT_FALSE(contains(broker_->output(), "refused")) << broker_->output();
}

// A certificate rotated on a running NameServer: SIGHUP makes it serve the new one to new
// clients (the watcher's 5 s would too), without a restart.
TEST_F(TlsDaemonsTest, SighupReloadsTheCertificateWithoutARestart) {
  const std::string rotate =
      "set -e; cd '" + dir_.path() + "'\n"
      "cp server.pem live.pem; cp server.key live.key\n"
      "openssl req -newkey rsa:2048 -nodes -keyout next.key -out next.csr -subj /CN=127.0.0.1\n"
      "openssl x509 -req -in next.csr -CA other-ca.pem -CAkey other-ca.key -CAcreateserial -out next.pem -days 2\n";
  ASSERT_EQ(run_to_exit("/bin/sh", {"-c", rotate}, dir_ / "rotate.out", kCommand).status, 0);
  ASSERT_EQ(start_namesrv("tls.server.mode=enforcing\ntls.server.certPath=" + (dir_ / "live.pem") +
                          "\ntls.server.keyPath=" + (dir_ / "live.key") + "\n"),
            "");
  const std::string old_trust = client_file("old.properties", "ca.pem");
  const std::string new_trust = client_file("new.properties", "other-ca.pem");
  RunResult r = admin({"clusterList", "--tls-config", old_trust});
  ASSERT_EQ(r.status, 0) << r.output;

  std::filesystem::copy_file(dir_ / "next.pem", dir_ / "live.pem", std::filesystem::copy_options::overwrite_existing);
  std::filesystem::copy_file(dir_ / "next.key", dir_ / "live.key", std::filesystem::copy_options::overwrite_existing);
  const pid_t before = namesrv_->pid();
  namesrv_->signal(SIGHUP);
  for (int attempt = 0; attempt < 40 && !contains(namesrv_->output(), "TLS: certificates reloaded"); ++attempt) {
    std::this_thread::sleep_for(100ms);
  }
  EXPECT_TRUE(contains(namesrv_->output(), "TLS: certificates reloaded (SIGHUP)")) << namesrv_->output();
  r = admin({"clusterList", "--tls-config", new_trust});
  EXPECT_EQ(r.status, 0) << r.output;
  r = admin({"clusterList", "--tls-config", old_trust});
  EXPECT_NE(r.status, 0) << "a client trusting only the old CA still got in:\n" << r.output;
  EXPECT_EQ(namesrv_->pid(), before);
  EXPECT_TRUE(namesrv_->running()) << "SIGHUP ended the NameServer:\n" << namesrv_->output();
}

TEST_F(TlsDaemonsTest, PermissiveAcceptsPlainAndTlsClients) {
  ASSERT_EQ(start_namesrv(server_keys("permissive")), "");
  ASSERT_EQ(start_broker(""), "");  // a plain broker registers with a permissive NameServer
  RunResult r;
  for (int attempt = 0; attempt < 60; ++attempt) {
    r = admin({"clusterList"});
    if (r.status == 0 && contains(r.output, "broker-a")) break;
    std::this_thread::sleep_for(500ms);
  }
  EXPECT_TRUE(contains(r.output, "broker-a")) << r.output;
  r = admin({"clusterList", "--tls-config", client_file("client.properties", "ca.pem")});
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "broker-a")) << r.output;
  EXPECT_FALSE(contains(namesrv_->output(), "refused")) << namesrv_->output();
}

TEST_F(TlsDaemonsTest, DisabledClosesATlsHandshake) {
  ASSERT_EQ(start_namesrv(""), "");  // no tls.* key: disabled
  RunResult r = admin({"clusterList", "--tls"});
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_TRUE(contains(namesrv_->output(), "refused: tls.server.mode is disabled")) << namesrv_->output();
  r = admin({"clusterList"});
  EXPECT_EQ(r.status, 0) << r.output;
}

TEST_F(TlsDaemonsTest, AClientThatVerifiesRefusesACertificateFromAnotherCa) {
  ASSERT_EQ(start_namesrv(server_keys("enforcing")), "");
  RunResult r = admin({"clusterList", "--tls-config", client_file("other.properties", "other-ca.pem")});
  EXPECT_NE(r.status, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "certificate verify failed")) << r.output;
  // The same server with the right CA: the refusal was about the CA.
  r = admin({"clusterList", "--tls-config", client_file("client.properties", "ca.pem")});
  EXPECT_EQ(r.status, 0) << r.output;
  // Without verification (--tls alone), any certificate is taken, as in RocketMQ.
  r = admin({"clusterList", "--tls"});
  EXPECT_EQ(r.status, 0) << r.output;
}

TEST_F(TlsDaemonsTest, ABadCertificatePathFailsTheStartNamingTheFileAndTheKey) {
  const std::string missing = dir_ / "no-such-cert.pem";
  const std::string conf = dir_ / "bad.conf";
  write_file(conf, "listenPort=" + std::to_string(free_port()) + "\ndataDir=" + (dir_ / "ns") +
                       "\ntls.server.mode=enforcing\ntls.server.certPath=" + missing +
                       "\ntls.server.keyPath=" + (dir_ / "server.key") + "\n");
  RunResult r = run_to_exit(mqnamesrv_path(), {"-c", conf}, dir_ / "bad-namesrv.out", kCommand);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "tls.server.certPath")) << r.output;
  EXPECT_TRUE(contains(r.output, missing)) << r.output;

  // The broker, through tls.config.file: a key file that is not a key.
  const std::string tls_file = dir_ / "tls.properties";
  write_file(tls_file, "tls.server.mode=permissive\ntls.server.certPath=" + (dir_ / "server.pem") +
                           "\ntls.server.keyPath=" + (dir_ / "ca.pem") + "\n");
  const std::string broker_conf = dir_ / "bad-broker.conf";
  write_file(broker_conf, "listenPort=" + std::to_string(free_broker_port()) + "\nstorePathRootDir=" + (dir_ / "store") +
                              "\ntls.config.file=" + tls_file + "\n");
  r = run_to_exit(mqbroker_path(), {"-c", broker_conf}, dir_ / "bad-broker.out", kCommand);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "tls.server.keyPath")) << r.output;
  EXPECT_TRUE(contains(r.output, dir_ / "ca.pem")) << r.output;
}

TEST_F(TlsDaemonsTest, AnEncryptedKeyLoadsWithItsPasswordOnly) {
  const std::string keys = "tls.server.mode=enforcing\ntls.server.certPath=" + (dir_ / "enc.pem") +
                           "\ntls.server.keyPath=" + (dir_ / "enc.key") + "\n";
  const std::string conf = dir_ / "wrong.conf";
  write_file(conf, "listenPort=" + std::to_string(free_port()) + "\ndataDir=" + (dir_ / "ns-wrong") + "\n" + keys +
                       "tls.server.keyPassword=not-the-password\n");
  RunResult r = run_to_exit(mqnamesrv_path(), {"-c", conf}, dir_ / "wrong-namesrv.out", kCommand);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_TRUE(contains(r.output, "tls.server.keyPath")) << r.output;
  EXPECT_TRUE(contains(r.output, "tls.server.keyPassword")) << r.output;

  ASSERT_EQ(start_namesrv(keys + "tls.server.keyPassword=secret\n"), "");
  r = admin({"clusterList", "--tls-config", client_file("client.properties", "ca.pem")});
  EXPECT_EQ(r.status, 0) << r.output;
}

}  // namespace
}  // namespace ferry::daemons_test
