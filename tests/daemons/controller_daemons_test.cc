// Three real mqnamesrv processes with embedded controllers (enableControllerInNamesrv, the keys of
// conf/controller/namesrv-n*.conf on free ports): they elect one controller leader over TCP with
// their Raft files on disk; a broker's id request is committed; kill -9 of the leader leaves a
// majority that elects another, which still knows the committed id; the killed one restarts from
// its files and follows.
#include <csignal>
#include <thread>

#include <gtest/gtest.h>

#include <algorithm>

#include "remoting/header/controller_header.h"
#include "remoting/rpc/rpc_client.h"
#include "remoting/request_code.h"
#include "remoting/response_code.h"
#include "runtime/asio/asio_runtime.h"
#include "tests/daemons/daemon_process.h"

namespace ferry::daemons_test {
namespace {

using remoting::RemotingCommand;
namespace rc = remoting::request_code;

std::string mqadmin_path() { return FERRY_MQADMIN_PATH; }

Task<Result<RemotingCommand>> call(remoting::RpcClient* rpc, std::string addr, RemotingCommand request) {
  co_return co_await rpc->invoke(std::move(addr), std::move(request), std::chrono::seconds(2));
}

class ControllerQuorum : public ::testing::Test {
 protected:
  void SetUp() override {
    const QuorumPorts q = quorum_ports();
    const std::string& peers = q.peers;
    std::copy(std::begin(q.namesrv), std::end(q.namesrv), std::begin(ns_ports_));
    std::copy(std::begin(q.controller), std::end(q.controller), std::begin(controller_ports_));
    for (int i = 0; i < 3; ++i) {
      conf_[i] = dir_.path() + fmt::format("/namesrv-n{}.conf", i);
      write_file(conf_[i], fmt::format("listenPort={}\nenableControllerInNamesrv=true\ncontrollerDLegerGroup=group1\n"
                                       "controllerDLegerPeers={}\ncontrollerDLegerSelfId=n{}\n",
                                       ns_ports_[i], peers, i));
      start(i);
    }
    AsioRuntime::Options o;
    o.node_name = "test-client";
    o.data_root = dir_.path() + "/client";
    rt_ = std::make_unique<AsioRuntime>(o);
    rpc_ = std::make_unique<remoting::RpcClient>(*rt_);
  }
  void TearDown() override {
    rpc_->shutdown();
    rpc_.reset();
    rt_.reset();
  }

  void start(int i) {
    nodes_[i] = std::make_unique<Child>(mqnamesrv_path(),
                                        std::vector<std::string>{"-c", conf_[i], "-d", dir_.path() + fmt::format("/n{}", i)},
                                        dir_.path() + fmt::format("/n{}.out", i));
    ASSERT_TRUE(wait_for_port(controller_ports_[i], std::chrono::seconds(10))) << nodes_[i]->output();
  }
  std::string controller(int i) const { return fmt::format("127.0.0.1:{}", controller_ports_[i]); }

  // The index of the controller that says it leads, within `timeout`; -1 if none does.
  int leader(std::chrono::milliseconds timeout, int skip = -1) {
    const auto until = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < until) {
      for (int i = 0; i < 3; ++i) {
        if (i == skip) continue;
        auto reply = rt_->block_on(call(rpc_.get(), controller(i), remoting::make_request(rc::CONTROLLER_GET_METADATA_INFO, 0)));
        if (!reply) continue;
        auto h = remoting::GetMetaDataResponseHeader::from_fields(reply->ext_fields);
        if (h && h->is_leader) return i;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return -1;
  }

  // `mqadmin ARGS...`: its exit status and output.
  RunResult mqadmin(std::vector<std::string> args) {
    args.insert(args.begin() + 1, {"-n", fmt::format("127.0.0.1:{}", ns_ports_[0])});
    return run_to_exit(mqadmin_path(), args, dir_.path() + "/mqadmin.out", std::chrono::seconds(20));
  }
  std::string all_controllers() const {
    return fmt::format("{};{};{}", controller(0), controller(1), controller(2));
  }

  RemotingCommand next_id_request() {
    RemotingCommand r = remoting::make_request(rc::CONTROLLER_GET_NEXT_BROKER_ID, 0);
    r.ext_fields = remoting::BrokerNameRequestHeader{std::string("DefaultCluster"), "broker-a"}.to_fields();
    return r;
  }

  TempDir dir_;
  std::uint16_t ns_ports_[3] = {};
  std::uint16_t controller_ports_[3] = {};
  std::string conf_[3];
  std::unique_ptr<Child> nodes_[3];
  std::unique_ptr<AsioRuntime> rt_;
  std::unique_ptr<remoting::RpcClient> rpc_;
};

TEST_F(ControllerQuorum, ALeaderIsElectedAndAfterItsKillAnotherServesWhatWasCommitted) {
  const int first = leader(std::chrono::seconds(20));
  ASSERT_GE(first, 0) << nodes_[0]->output();

  // A broker takes id 1 of broker-a: committed by the quorum.
  RemotingCommand apply = remoting::make_request(rc::CONTROLLER_APPLY_BROKER_ID, 0);
  apply.ext_fields = remoting::ApplyBrokerIdRequestHeader{"DefaultCluster", "broker-a", 1, "127.0.0.1:10911;1"}.to_fields();
  auto applied = rt_->block_on(call(rpc_.get(), controller(first), apply));
  ASSERT_TRUE(applied.ok()) << applied.error().to_string();
  ASSERT_EQ(applied->code, 0) << applied->remark.value_or("");
  // An operator sees the leader and the group (mqadmin, RocketMQ's output lines).
  RunResult meta = mqadmin({"getControllerMetaData", "-a", controller((first + 1) % 3)});
  ASSERT_EQ(meta.status, 0) << meta.output;
  EXPECT_NE(meta.output.find("#ControllerLeaderAddress\t" + controller(first)), std::string::npos) << meta.output;
  EXPECT_NE(meta.output.find("#Peer:\tn2:" + controller(2)), std::string::npos) << meta.output;
  RunResult sss = mqadmin({"getSyncStateSet", "-a", all_controllers(), "-b", "broker-a"});
  ASSERT_EQ(sss.status, 0) << sss.output;
  EXPECT_NE(sss.output.find("#MasterBrokerId\t-1"), std::string::npos) << sss.output;
  EXPECT_NE(sss.output.find("NotInSyncReplica:\tReplicaIdentity{brokerName='broker-a', brokerId=1, "
                            "brokerAddress='127.0.0.1:10911', alive=false}"), std::string::npos) << sss.output;
  RunResult elect = mqadmin({"electMaster", "-a", all_controllers(), "-c", "DefaultCluster", "--brokerName", "broker-a", "-b", "1"});
  EXPECT_EQ(elect.status, 1) << "a replica that is not alive cannot be made master\n" << elect.output;
  EXPECT_NE(elect.output.find("2012"), std::string::npos) << elect.output;

  // Settings: read from each controller, changed on each and saved to its file; the quorum's shape
  // cannot change while it runs, RocketMQ's blacklisted keys are refused.
  RunResult set = mqadmin({"updateControllerConfig", "-a", all_controllers(), "-k", "scanNotActiveBrokerInterval", "-v", "3000"});
  ASSERT_EQ(set.status, 0) << set.output;
  RunResult get = mqadmin({"getControllerConfig", "-a", controller(1)});
  ASSERT_EQ(get.status, 0) << get.output;
  EXPECT_NE(get.output.find("scanNotActiveBrokerInterval"), std::string::npos) << get.output;
  EXPECT_NE(get.output.find("=  3000"), std::string::npos) << get.output;
  EXPECT_NE(read_file(conf_[2]).find("scanNotActiveBrokerInterval=3000"), std::string::npos) << read_file(conf_[2]);
  RunResult fixed = mqadmin({"updateControllerConfig", "-a", controller(0), "-k", "controllerDLegerSelfId", "-v", "n9"});
  EXPECT_EQ(fixed.status, 1) << fixed.output;
  EXPECT_NE(fixed.output.find("cannot change while the controller runs"), std::string::npos) << fixed.output;
  RunResult black = mqadmin({"updateControllerConfig", "-a", controller(0), "-k", "configStorePath", "-v", "/x"});
  EXPECT_EQ(black.status, 1) << black.output;
  EXPECT_NE(black.output.find("Can not update config in black list."), std::string::npos) << black.output;

  // A follower refuses: it is not the leader.
  const int follower = (first + 1) % 3;
  auto refused = rt_->block_on(call(rpc_.get(), controller(follower), next_id_request()));
  ASSERT_TRUE(refused.ok());
  EXPECT_EQ(refused->code, remoting::response_code::CONTROLLER_NOT_LEADER);

  const auto killed_at = std::chrono::steady_clock::now();
  nodes_[first]->signal(SIGKILL);
  ASSERT_TRUE(nodes_[first]->wait(std::chrono::seconds(5)).has_value());
  const int second = leader(std::chrono::seconds(20), first);
  ASSERT_GE(second, 0) << "no new controller leader after kill -9";
  const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - killed_at);
  RecordProperty("controller_failover_ms", static_cast<int>(took.count()));
  std::fprintf(stderr, "controller leader failover after kill -9: %lld ms\n", static_cast<long long>(took.count()));

  auto next = rt_->block_on(call(rpc_.get(), controller(second), next_id_request()));
  ASSERT_TRUE(next.ok()) << next.error().to_string();
  ASSERT_EQ(next->code, 0) << next->remark.value_or("");
  auto h = remoting::GetNextBrokerIdResponseHeader::from_fields(next->ext_fields);
  ASSERT_TRUE(h.ok());
  EXPECT_EQ(h->next_broker_id, 2) << "the new leader knows the id committed before the kill";

  // The killed controller restarts from its Raft files and follows.
  start(first);
  auto again = [&] {
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (std::chrono::steady_clock::now() < until) {
      auto r = rt_->block_on(call(rpc_.get(), controller(first), remoting::make_request(rc::CONTROLLER_GET_METADATA_INFO, 0)));
      if (r) {
        auto m = remoting::GetMetaDataResponseHeader::from_fields(r->ext_fields);
        if (m && !m->controller_leader_address.empty()) return true;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return false;
  }();
  EXPECT_TRUE(again) << "the restarted controller knows a leader\n" << nodes_[first]->output();

  RunResult clean = mqadmin({"cleanBrokerMetadata", "-a", all_controllers(), "--brokerName", "broker-a", "-b", "1"});
  ASSERT_EQ(clean.status, 0) << clean.output;
  EXPECT_NE(clean.output.find("clear broker broker-a metadata from controller success!"), std::string::npos) << clean.output;
  RunResult gone = mqadmin({"getSyncStateSet", "-a", all_controllers(), "-b", "broker-a"});
  EXPECT_EQ(gone.status, 1) << gone.output;
}

}  // namespace
}  // namespace ferry::daemons_test
