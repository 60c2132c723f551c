// ACL on real processes (docs/operations.md, "Security"): a broker with aclEnable=true refuses a
// raw unsigned request of each admin code with RocketMQ's AclException remark and a non-admin's
// signed one too; mqadmin signing with an admin's keys is served, with a wrong secret refused; a
// NameServer with aclEnable=true refuses an unsigned REGISTER_BROKER while a broker that signs
// with an admin's keys registers; a bad plain_acl.yml stops a daemon at start with file and line.
#include <gtest/gtest.h>

#include <cstdlib>

#include <string>
#include <thread>
#include <vector>

#include "remoting/acl/signature.h"
#include "remoting/remoting_command.h"
#include "remoting/request_code.h"
#include "remoting/response_code.h"
#include "remoting/rpc/rpc_client.h"
#include "tests/daemons/daemon_process.h"
#include "tests/daemons/wire_client.h"
#include "tests/support/requests.h"

namespace ferry::daemons_test {
namespace {

std::string mqadmin_path() { return FERRY_MQADMIN_PATH; }
std::string mqbench_path() { return FERRY_MQBENCH_PATH; }

constexpr const char* kAclYaml =
    "accounts:\n"
    "  - accessKey: ferryAdmin\n"
    "    secretKey: admin-secret-1\n"
    "    admin: true\n"
    "  - accessKey: appUser01\n"
    "    secretKey: app-secret-01\n"
    "    defaultTopicPerm: PUB\n"
    "    defaultGroupPerm: SUB\n"
    "  - accessKey: deniedUser\n"
    "    secretKey: denied-secret\n"
    "    defaultTopicPerm: DENY\n"
    "    defaultGroupPerm: SUB\n";

struct Reply {
  int code = -1;
  std::string remark;
};

Reply call(WireClient& wire, const std::string& addr, remoting::RemotingCommand request) {
  Result<remoting::RemotingCommand> r =
      wire.rt().block_on(wire.rpc().invoke(addr, std::move(request), std::chrono::seconds(5)));
  if (!r.ok()) return Reply{-1, r.error().to_string()};
  return Reply{r->code, r->remark.value_or("")};
}

// UPDATE_AND_CREATE_TOPIC of `topic` with 4 queues, every field written (topicSysFlag 0, order
// false) as mqadmin writes them: a signature covers the fields the request carries.
remoting::RemotingCommand create_topic(const std::string& topic) {
  remoting::CreateTopicRequestHeader h = ferry::testing::topic_header(topic, 4);
  h.topic_sys_flag = 0;
  return ferry::testing::create_topic_request(h);
}

TEST(AclDaemons, BrokerRefusesUnsignedAdminCodesAndServesSignedAdmin) {
  TempDir dir;
  write_file(dir / "plain_acl.yml", kAclYaml);  // beside broker.conf: the default aclFilePath
  LocalCluster cluster(dir);
  ASSERT_EQ(cluster.start_namesrv(), "");
  ASSERT_EQ(cluster.start_broker("aclEnable=true\nlistenAddress=127.0.0.1\n"), "");
  WireClient wire(dir / "wire");

  for (std::int32_t code : {17, 25, 200, 207, 215}) {
    remoting::RemotingCommand raw = ferry::testing::plain_request(code, {{"topic", "AclT"}, {"groupName", "g1"}});
    const Reply r = call(wire, cluster.broker_addr(), std::move(raw));
    EXPECT_EQ(r.code, remoting::response_code::SYSTEM_ERROR) << code << ": " << r.remark;
    EXPECT_TRUE(r.remark.starts_with("AclException: No accessKey is configured")) << code << ": " << r.remark;

    remoting::RemotingCommand by_user = ferry::testing::plain_request(code, {{"topic", "AclT"}});
    remoting::acl::sign(by_user, remoting::acl::Credentials{"appUser01", "app-secret-01", std::nullopt});
    const Reply u = call(wire, cluster.broker_addr(), std::move(by_user));
    EXPECT_EQ(u.code, remoting::response_code::SYSTEM_ERROR) << code;
    EXPECT_EQ(u.remark, "AclException: Need admin permission for request code=" + std::to_string(code) +
                            ", but accessKey=appUser01 is not");
  }
  // Signed by hand with the admin's keys: served.
  remoting::RemotingCommand signed_create = create_topic("AclSigned");
  remoting::acl::sign(signed_create, remoting::acl::Credentials{"ferryAdmin", "admin-secret-1", std::nullopt});
  EXPECT_EQ(call(wire, cluster.broker_addr(), std::move(signed_create)).code, remoting::response_code::SUCCESS);

  // mqadmin with the admin's keys (flags), then from the environment is not exercised here: with a
  // wrong secret it is refused and says why.
  RunResult ok = run_to_exit(mqadmin_path(),
                             {"updateTopic", "-n", cluster.namesrv_addr(), "-b", cluster.broker_addr(), "-t", "AclByAdmin",
                              "--access-key", "ferryAdmin", "--secret-key", "admin-secret-1"},
                             dir / "mqadmin-ok.out", std::chrono::seconds(30));
  EXPECT_EQ(ok.status, 0) << ok.output;
  RunResult wrong = run_to_exit(mqadmin_path(),
                                {"updateTopic", "-n", cluster.namesrv_addr(), "-b", cluster.broker_addr(), "-t",
                                 "AclWrong", "--access-key", "ferryAdmin", "--secret-key", "not-the-secret"},
                                dir / "mqadmin-wrong.out", std::chrono::seconds(30));
  EXPECT_NE(wrong.status, 0) << wrong.output;
  EXPECT_NE(wrong.output.find("Check signature failed for accessKey=ferryAdmin"), std::string::npos) << wrong.output;
  EXPECT_EQ(wrong.output.find("not-the-secret"), std::string::npos) << wrong.output;
  RunResult unsigned_admin = run_to_exit(mqadmin_path(),
                                         {"updateTopic", "-n", cluster.namesrv_addr(), "-b", cluster.broker_addr(), "-t",
                                          "AclUnsigned"},
                                         dir / "mqadmin-unsigned.out", std::chrono::seconds(30));
  EXPECT_NE(unsigned_admin.status, 0) << unsigned_admin.output;
  // The broker's log names the refusals but never a secret.
  const std::string log = cluster.broker()->output();
  EXPECT_NE(log.find("ACL: refused request code"), std::string::npos) << log;
  EXPECT_EQ(log.find("admin-secret-1"), std::string::npos);
  EXPECT_EQ(log.find("not-the-secret"), std::string::npos);
}

// mqbench signs every request with keys from the environment: an account with PUB sends, one
// whose topics are DENY sends nothing (each send refused with the AclException remark).
TEST(AclDaemons, MqbenchSignsWithKeysFromTheEnvironment) {
  TempDir dir;
  write_file(dir / "plain_acl.yml", kAclYaml);
  LocalCluster cluster(dir);
  ASSERT_EQ(cluster.start_namesrv(), "");
  ASSERT_EQ(cluster.start_broker("aclEnable=true\n"), "");
  RunResult created = run_to_exit(mqadmin_path(),
                                  {"updateTopic", "-n", cluster.namesrv_addr(), "-b", cluster.broker_addr(), "-t",
                                   "AclBench", "--access-key", "ferryAdmin", "--secret-key", "admin-secret-1"},
                                  dir / "create.out", std::chrono::seconds(30));
  ASSERT_EQ(created.status, 0) << created.output;
  auto produce = [&](const char* key, const char* secret, const std::string& out) {
    ::setenv("FERRY_ACCESS_KEY", key, 1);
    ::setenv("FERRY_SECRET_KEY", secret, 1);
    RunResult r = run_to_exit(mqbench_path(), {"produce", "-n", cluster.namesrv_addr(), "-t", "AclBench", "-d", "1"},
                              dir / out, std::chrono::seconds(60));
    ::unsetenv("FERRY_ACCESS_KEY");
    ::unsetenv("FERRY_SECRET_KEY");
    return r;
  };
  RunResult allowed = produce("appUser01", "app-secret-01", "bench-ok.out");
  EXPECT_EQ(allowed.status, 0) << allowed.output;
  EXPECT_NE(allowed.output.find("sent ok:"), std::string::npos) << allowed.output;
  EXPECT_EQ(allowed.output.find("sent ok:            0"), std::string::npos) << allowed.output;
  RunResult denied = produce("deniedUser", "denied-secret", "bench-denied.out");
  EXPECT_NE(denied.output.find("sent ok:       0"), std::string::npos) << denied.output;
  EXPECT_NE(denied.output.find("broker reply SYSTEM_ERROR (1)"), std::string::npos) << denied.output;
  // mqbench shortens the reply's remark; the broker's log has it whole.
  EXPECT_NE(cluster.broker()->output().find("AclException: No permission PUB for topic:AclBench, accessKey=deniedUser has DENY"),
            std::string::npos)
      << cluster.broker()->output();
  EXPECT_EQ(denied.output.find("denied-secret"), std::string::npos);
}

TEST(AclDaemons, NameServerRefusesUnsignedRegistrationAndASigningBrokerRegisters) {
  TempDir dir;
  write_file(dir / "plain_acl.yml", kAclYaml);
  write_file(dir / "namesrv.conf", "aclEnable=true\nlistenAddress=127.0.0.1\n");
  const std::uint16_t ns_port = free_port();
  Child ns(mqnamesrv_path(), {"-c", dir / "namesrv.conf", "-p", std::to_string(ns_port), "-d", dir / "ns"},
           dir / "namesrv.out");
  ASSERT_TRUE(wait_for_port(ns_port, std::chrono::seconds(15))) << ns.output();
  const std::string ns_addr = "127.0.0.1:" + std::to_string(ns_port);
  WireClient wire(dir / "wire");

  ferry::testing::BrokerSpec intruder;
  intruder.cluster = "Evil";
  intruder.name = "intruder";
  intruder.addr = "127.0.0.1:1";
  intruder.ha_addr = "127.0.0.1:2";
  const Reply refused = call(wire, ns_addr, ferry::testing::register_request(intruder));
  EXPECT_EQ(refused.code, remoting::response_code::SYSTEM_ERROR);
  EXPECT_TRUE(refused.remark.starts_with("AclException: No accessKey is configured")) << refused.remark;
  // Reads need no key.
  const remoting::RemotingCommand info = ferry::testing::plain_request(remoting::request_code::GET_BROKER_CLUSTER_INFO);
  EXPECT_EQ(call(wire, ns_addr, info).code, remoting::response_code::SUCCESS);

  // A broker signing with the admin's keys registers (its broker.conf has no aclEnable itself).
  const std::uint16_t broker_port = free_broker_port();
  write_file(dir / "broker.conf", "brokerClusterName=AclCluster\nbrokerName=broker-acl\nbrokerId=0\nlistenPort=" +
                                      std::to_string(broker_port) + "\nstorePathRootDir=" + (dir / "store") +
                                      "\nmappedFileSizeCommitLog=1048576\nmaxMessageSize=65536\nnamesrvAddr=" + ns_addr +
                                      "\naccessKey=ferryAdmin\nsecretKey=admin-secret-1\n");
  Child broker(mqbroker_path(), {"-c", dir / "broker.conf"}, dir / "broker.out");
  ASSERT_TRUE(wait_for_port(broker_port, std::chrono::seconds(15))) << broker.output();
  bool listed = false;
  for (int i = 0; i < 100 && !listed; ++i) {
    RunResult r = run_to_exit(mqadmin_path(), {"clusterList", "-n", ns_addr}, dir / "cluster.out", std::chrono::seconds(10));
    listed = r.status == 0 && r.output.find("broker-acl") != std::string::npos;
    if (!listed) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_TRUE(listed) << broker.output() << ns.output();
  EXPECT_EQ(ns.output().find("intruder"), std::string::npos);  // never registered
}

TEST(AclDaemons, ABadAclFileStopsTheBrokerAtStartWithFileAndLine) {
  TempDir dir;
  write_file(dir / "plain_acl.yml", "accounts:\n  - accessKey: short\n    secretKey: 12345678\n");
  write_file(dir / "broker.conf", "brokerName=broker-bad\nlistenPort=" + std::to_string(free_broker_port()) +
                                      "\nstorePathRootDir=" + (dir / "store") + "\naclEnable=true\n");
  Child broker(mqbroker_path(), {"-c", dir / "broker.conf"}, dir / "broker.out");
  const std::optional<int> status = broker.wait(std::chrono::seconds(15));
  ASSERT_TRUE(status.has_value()) << broker.output();
  EXPECT_EQ(*status, 1) << broker.output();
  EXPECT_NE(broker.output().find("plain_acl.yml:2: accessKey"), std::string::npos) << broker.output();
}

}  // namespace
}  // namespace ferry::daemons_test
