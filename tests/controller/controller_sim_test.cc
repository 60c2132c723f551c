// Three controllers (src/controller) in the simulator, spoken to over the wire by stand-in brokers
// that do what a RocketMQ 5 broker in controller mode does: find the leader (1005), take an id
// (1012, 1013), register (1003), heart-beat every controller (904), elect themselves (1002) and,
// as master, grow the SyncStateSet (1001), and poll their group (1004) every 5 s. Then a master
// dies, and the controllers elect a new one on their own and the group learns it (1008, or the
// poll when the oneway 1008 is lost) — also when the controller leader dies with the master.
#include <gtest/gtest.h>

#include <map>

#include "controller/controller.h"
#include "remoting/body/controller_bodies.h"
#include "remoting/header/controller_header.h"
#include "remoting/request_code.h"
#include "sim/world.h"
#include "tests/support/sim_test_util.h"
#include "tests/support/swarm_env.h"

namespace ferry::controller {
namespace {

using remoting::RemotingCommand;
using sim::NodeId;
using sim::World;
namespace rc = remoting::request_code;

constexpr std::uint16_t kControllerPort = 9878;
constexpr std::uint16_t kBrokerPort = 10911;

// Node n of the world has the host 127.0.0.<10+n>: controllers are nodes 0-2, brokers 3-5.
std::string host_of(int node) { return fmt::format("127.0.0.{}", 10 + node); }

ControllerConfig config_for(int self) {
  ControllerConfig c;
  for (int i = 0; i < 3; ++i) c.peers.push_back(ControllerPeer{fmt::format("n{}", i), fmt::format("{}:{}", host_of(i), kControllerPort)});
  c.self = fmt::format("n{}", self);
  return c;
}

struct Notified {
  std::int64_t master_id = -1;
  std::int32_t master_epoch = 0;
};

// A stand-in broker: serves NOTIFY_BROKER_ROLE_CHANGED and heart-beats every controller each second.
class FakeBroker {
 public:
  FakeBroker(Runtime& rt, std::shared_ptr<std::map<std::string, Notified>> notified)
      : rt_(rt), server_(rt), client_(rt), notified_(std::move(notified)) {
    address_ = fmt::format("{}:{}", rt.network().host(), kBrokerPort);
    server_.register_processor(rc::NOTIFY_BROKER_ROLE_CHANGED, [this](remoting::RequestContext ctx) -> Task<std::optional<RemotingCommand>> {
      auto h = remoting::NotifyBrokerRoleChangedRequestHeader::from_fields(ctx.request.ext_fields);
      Notified& known = (*notified_)[address_];
      if (h && h->master_epoch > known.master_epoch) known = Notified{h->master_broker_id, h->master_epoch};
      co_return std::nullopt;
    });
    Status s = server_.start(Endpoint{rt.network().host(), kBrokerPort});
    EXPECT_TRUE(s.ok()) << s.error().to_string();
    rt.spawn(beat_forever(this), "heartbeat");
  }
  ~FakeBroker() { server_.stop(); }

  std::int64_t id = 0;
  std::int32_t epoch = 0;

  static Task<void> beat_forever(FakeBroker* self) {
    for (;;) {
      if (self->id > 0) {
        for (int i = 0; i < 3; ++i) {
          remoting::BrokerHeartbeatRequestHeader h;
          h.cluster_name = "DefaultCluster";
          h.broker_addr = self->address_;
          h.broker_name = "broker-a";
          h.broker_id = self->id;
          h.epoch = self->epoch;
          h.max_offset = 1000;
          h.heartbeat_timeout_mills = 10'000;
          RemotingCommand req = remoting::make_request(rc::BROKER_HEARTBEAT, 0);
          req.ext_fields = h.to_fields();
          Status s = co_await self->client_.invoke_oneway(fmt::format("{}:{}", host_of(i), kControllerPort), std::move(req));
          (void)s;
        }
      }
      if (self->id > 0 && ++self->beats_ % 5 == 0) co_await self->poll_replica_info();
      co_await self->rt_.sleep(1s);
    }
  }

  // What a broker does every syncBrokerMetadataPeriod (5 s): CONTROLLER_GET_REPLICA_INFO (1004),
  // so it learns a new master even when the oneway 1008 is lost.
  Task<void> poll_replica_info() {
    RemotingCommand req = remoting::make_request(rc::CONTROLLER_GET_REPLICA_INFO, 0);
    req.ext_fields = remoting::BrokerNameRequestHeader{std::nullopt, "broker-a"}.to_fields();
    auto reply = co_await call_leader(std::move(req));
    if (!reply || reply->code != 0) co_return;
    auto h = remoting::ElectMasterResponseHeader::from_fields(reply->ext_fields);
    if (h && h->master_broker_id && h->master_epoch) {
      Notified& known = (*notified_)[address_];
      if (*h->master_epoch > known.master_epoch) known = Notified{*h->master_broker_id, *h->master_epoch};
    }
  }

  // One request to one controller.
  Task<Result<RemotingCommand>> ask(std::string addr, RemotingCommand request) {
    co_return co_await client_.invoke(std::move(addr), std::move(request), 3s);
  }

  // One request to the controller leader (found with 1005), retried until it is answered.
  Task<Result<RemotingCommand>> call_leader(RemotingCommand request) {
    for (int attempt = 0; attempt < 50; ++attempt) {
      for (int i = 0; i < 3; ++i) {
        RemotingCommand meta = remoting::make_request(rc::CONTROLLER_GET_METADATA_INFO, 0);
        auto reply = co_await client_.invoke(fmt::format("{}:{}", host_of(i), kControllerPort), std::move(meta), 1s);
        if (!reply) continue;
        auto h = remoting::GetMetaDataResponseHeader::from_fields(reply->ext_fields);
        if (!h || h->controller_leader_address.empty()) continue;
        auto answer = co_await client_.invoke(h->controller_leader_address, request, 3s);
        if (answer && answer->code != remoting::response_code::CONTROLLER_NOT_LEADER) co_return answer;
      }
      co_await rt_.sleep(500ms);
    }
    co_return Error(Errc::timed_out, "no controller leader answered");
  }

  // 1012, 1013, 1003, then 1002 for itself: the broker's start-up in controller mode.
  Task<Status> join() {
    RemotingCommand next = remoting::make_request(rc::CONTROLLER_GET_NEXT_BROKER_ID, 0);
    next.ext_fields = remoting::BrokerNameRequestHeader{std::string("DefaultCluster"), "broker-a"}.to_fields();
    auto n = co_await call_leader(next);
    if (!n) co_return n.error();
    auto nh = remoting::GetNextBrokerIdResponseHeader::from_fields(n->ext_fields);
    if (!nh) co_return nh.error();
    RemotingCommand apply = remoting::make_request(rc::CONTROLLER_APPLY_BROKER_ID, 0);
    apply.ext_fields = remoting::ApplyBrokerIdRequestHeader{"DefaultCluster", "broker-a", nh->next_broker_id,
                                                            address_ + ";1"}.to_fields();
    auto a = co_await call_leader(apply);
    if (!a) co_return a.error();
    if (a->code != 0) co_return Error(Errc::invalid_argument, fmt::format("apply {}: {}", a->code, a->remark.value_or("")));
    id = nh->next_broker_id;
    RemotingCommand reg = remoting::make_request(rc::CONTROLLER_REGISTER_BROKER, 0);
    reg.ext_fields = remoting::RegisterBrokerToControllerRequestHeader{"DefaultCluster", "broker-a", id, address_, std::nullopt}.to_fields();
    auto r = co_await call_leader(reg);
    if (!r) co_return r.error();
    if (r->code != 0) co_return Error(Errc::invalid_argument, fmt::format("register {}", r->code));
    co_await rt_.sleep(1500ms);  // heartbeats reach the controllers
    RemotingCommand elect = remoting::make_request(rc::CONTROLLER_ELECT_MASTER, 0);
    elect.ext_fields = remoting::ElectMasterRequestHeader{"DefaultCluster", "broker-a", id, false, std::nullopt}.to_fields();
    auto e = co_await call_leader(elect);
    if (!e) co_return e.error();
    auto eh = remoting::ElectMasterResponseHeader::from_fields(e->ext_fields);
    if (eh && eh->master_epoch) epoch = *eh->master_epoch;
    co_return Status{};
  }

  // As master: the SyncStateSet becomes `ids` (1001).
  Task<Result<std::int32_t>> alter(std::set<std::int64_t> ids, std::int32_t master_epoch, std::int32_t set_epoch) {
    RemotingCommand req = remoting::make_request(rc::CONTROLLER_ALTER_SYNC_STATE_SET, 0);
    req.ext_fields = remoting::AlterSyncStateSetRequestHeader{"broker-a", id, master_epoch, std::nullopt}.to_fields();
    req.body = remoting::body::SyncStateSet{ids, set_epoch}.encode();
    auto r = co_await call_leader(req);
    if (!r) co_return r.error();
    co_return r->code;
  }

 private:
  Runtime& rt_;
  remoting::RpcServer server_;
  remoting::RpcClient client_;
  std::shared_ptr<std::map<std::string, Notified>> notified_;
  std::string address_;
  std::uint64_t beats_ = 0;
};

class ControllerSim : public ::testing::Test {
 protected:
  void SetUp() override {
    options_ = ferry::testing::world_options(sim::testing::test_options(11));
    replay_ = std::make_unique<ferry::testing::ReplayTrace>(options_);
    world_ = std::make_unique<World>(options_);
    for (int i = 0; i < 3; ++i) {
      auto hosts = controllers_;
      controller_nodes_.push_back(world_->add_node(fmt::format("controller-{}", i), [i, hosts](Runtime& rt) {
        auto c = std::make_unique<Controller>(rt, config_for(i));
        Status s = c->start();
        EXPECT_TRUE(s.ok()) << s.error().to_string();
        (*hosts)[i] = c.get();
        return sim::hosted(std::make_unique<Owned>(std::move(c), hosts, i));
      }));
    }
    for (int i = 0; i < 3; ++i) {
      auto brokers = brokers_;
      auto notified = notified_;
      broker_nodes_.push_back(world_->add_node(fmt::format("broker-{}", i), [i, brokers, notified](Runtime& rt) {
        auto b = std::make_unique<FakeBroker>(rt, notified);
        (*brokers)[i] = b.get();
        return sim::hosted(std::move(b));
      }));
    }
  }

  // Keeps the controller map current as nodes crash and start.
  struct Owned {
    Owned(std::unique_ptr<Controller> c, std::shared_ptr<std::map<int, Controller*>> m, int i)
        : controller(std::move(c)), map(std::move(m)), index(i) {}
    ~Owned() { map->erase(index); }
    std::unique_ptr<Controller> controller;
    std::shared_ptr<std::map<int, Controller*>> map;
    int index;
  };

  const BrokerSet* group_on_leader() {
    for (auto& [i, c] : *controllers_) {
      if (c->raft().is_ready()) return c->replicas().find("broker-a");
    }
    return nullptr;
  }
  int leader_index() {
    for (auto& [i, c] : *controllers_) {
      if (c->raft().is_ready()) return i;
    }
    return -1;
  }

  static Task<Status> join(FakeBroker* b) { co_return co_await b->join(); }
  static Task<Result<RemotingCommand>> ask(FakeBroker* b, std::string addr, RemotingCommand request) {
    co_return co_await b->ask(std::move(addr), std::move(request));
  }
  static Task<Result<std::int32_t>> alter(FakeBroker* b, std::set<std::int64_t> ids, std::int32_t me, std::int32_t se) {
    co_return co_await b->alter(std::move(ids), me, se);
  }

  // All three brokers join; broker 0 becomes master and grows the SyncStateSet to {1,2,3}.
  void form_group() {
    for (int i = 0; i < 3; ++i) {
      auto r = world_->run_task(broker_nodes_[i], join((*brokers_)[i]), 60s);
      ASSERT_TRUE(r.ok()) << r.report.message;
      ASSERT_TRUE(r.value->ok()) << r.value->error().to_string();
    }
    const BrokerSet* set = group_on_leader();
    ASSERT_NE(set, nullptr);
    ASSERT_EQ(set->master, 1);
    ASSERT_EQ(set->master_epoch, 1);
    auto r = world_->run_task(broker_nodes_[0], alter((*brokers_)[0], {1, 2, 3}, 1, 1), 30s);
    ASSERT_TRUE(r.ok());
    ASSERT_TRUE(r.value->ok()) << r.value->error().to_string();
    ASSERT_EQ(**r.value, 0) << "alter refused";
    set = group_on_leader();
    ASSERT_NE(set, nullptr);
    EXPECT_EQ(set->sync_state_set, (std::set<ReplicaId>{1, 2, 3}));
    EXPECT_EQ(set->sync_state_set_epoch, 2);
  }

  // Waits until the leader's group has a master other than `old` with a higher epoch.
  bool new_master_elected(ReplicaId old, Duration limit) {
    auto report = world_->run_until([&] {
      const BrokerSet* set = group_on_leader();
      return set != nullptr && set->master && *set->master != old && set->master_epoch >= 2;
    }, limit);
    return report.ok();
  }

  sim::WorldOptions options_;
  std::unique_ptr<ferry::testing::ReplayTrace> replay_;
  std::unique_ptr<World> world_;
  std::shared_ptr<std::map<int, Controller*>> controllers_ = std::make_shared<std::map<int, Controller*>>();
  std::shared_ptr<std::map<int, FakeBroker*>> brokers_ = std::make_shared<std::map<int, FakeBroker*>>();
  std::shared_ptr<std::map<std::string, Notified>> notified_ = std::make_shared<std::map<std::string, Notified>>();
  std::vector<NodeId> controller_nodes_;
  std::vector<NodeId> broker_nodes_;
};

TEST_F(ControllerSim, BrokersJoinTheFirstBecomesMasterAndOnlyTheMasterOfTheEpochMayAlterTheSet) {
  form_group();
  // A stale epoch and a non-master are refused with RocketMQ's codes.
  auto stale = world_->run_task(broker_nodes_[0], alter((*brokers_)[0], {1, 2}, 1, 1), 30s);
  ASSERT_TRUE(stale.ok() && stale.value->ok());
  EXPECT_EQ(**stale.value, remoting::response_code::CONTROLLER_FENCED_SYNC_STATE_SET_EPOCH);
  auto impostor = world_->run_task(broker_nodes_[1], alter((*brokers_)[1], {1, 2}, 1, 2), 30s);
  ASSERT_TRUE(impostor.ok() && impostor.value->ok());
  EXPECT_EQ(**impostor.value, remoting::response_code::CONTROLLER_INVALID_MASTER);
  // Every controller holds the same state.
  world_->run_for(2s);
  for (auto& [i, c] : *controllers_) {
    EXPECT_EQ(c->replicas(), (*controllers_)[leader_index()]->replicas()) << "controller " << i;
  }
}

// 1006 is the leader's; Ferry's 10004 is every controller's own view, so an operator (or
// `mqsim run --real`) can see whether the peers agree.
TEST_F(ControllerSim, EveryControllerAnswersWithItsOwnViewOnlyTheLeaderWith1006) {
  form_group();
  world_->run_for(2s);
  const int leader = leader_index();
  ASSERT_GE(leader, 0);
  const int follower = (leader + 1) % 3;
  const std::string follower_addr = fmt::format("{}:{}", host_of(follower), kControllerPort);
  RemotingCommand global = remoting::make_request(rc::CONTROLLER_GET_SYNC_STATE_DATA, 0);
  global.body = remoting::body::write_name_list({"broker-a"});
  auto refused = world_->run_task(broker_nodes_[0], ask((*brokers_)[0], follower_addr, global), 10s);
  ASSERT_TRUE(refused.ok() && refused.value->ok());
  EXPECT_EQ((*refused.value)->code, remoting::response_code::CONTROLLER_NOT_LEADER);

  for (const bool named : {true, false}) {
    RemotingCommand local = remoting::make_request(rc::FERRY_GET_LOCAL_SYNC_STATE_DATA, 0);
    if (named) local.body = remoting::body::write_name_list({"broker-a", "no-such-group"});
    auto r = world_->run_task(broker_nodes_[0], ask((*brokers_)[0], follower_addr, local), 10s);
    ASSERT_TRUE(r.ok() && r.value->ok());
    ASSERT_EQ((*r.value)->code, 0) << (*r.value)->remark.value_or("");
    auto info = remoting::body::BrokerReplicasInfo::decode((*r.value)->body);
    ASSERT_TRUE(info.ok()) << info.error().to_string();
    ASSERT_EQ(info->replicas_info_table.size(), 1u) << "the group it knows, not the unknown name";
    const remoting::body::ReplicasInfo& g = info->replicas_info_table.at("broker-a");
    const BrokerSet* set = (*controllers_)[follower]->replicas().find("broker-a");
    ASSERT_NE(set, nullptr);
    EXPECT_EQ(g.master_broker_id, 1);
    EXPECT_EQ(g.master_epoch, set->master_epoch);
    EXPECT_EQ(g.sync_state_set_epoch, 2);
    EXPECT_EQ(g.in_sync_replicas.size(), 3u);
    EXPECT_EQ(g.master_address, set->address_of(1));
  }
  RemotingCommand bad = remoting::make_request(rc::FERRY_GET_LOCAL_SYNC_STATE_DATA, 0);
  bad.body = {'{'};
  auto r = world_->run_task(broker_nodes_[0], ask((*brokers_)[0], follower_addr, bad), 10s);
  ASSERT_TRUE(r.ok() && r.value->ok());
  EXPECT_EQ((*r.value)->code, remoting::response_code::CONTROLLER_INVALID_REQUEST);
}

TEST_F(ControllerSim, AMasterThatStopsHeartBeatingIsReplacedAndTheGroupIsTold) {
  form_group();
  const MonoTime died = world_->now();
  world_->kill(broker_nodes_[0]);
  ASSERT_TRUE(new_master_elected(1, 60s));
  const BrokerSet* set = group_on_leader();
  EXPECT_EQ(set->master_epoch, 2);
  EXPECT_EQ(set->sync_state_set, (std::set<ReplicaId>{*set->master}));
  const Duration took = world_->now() - died;
  EXPECT_LE(took, 20s) << "heartbeat timeout 10 s plus one 5 s scan";
  const ReplicaId master = *set->master;
  auto told = world_->run_until([&] {
    int n = 0;
    for (auto& [addr, note] : *notified_) n += note.master_id == master && note.master_epoch == 2;
    return n == 2;
  }, 15s);
  std::string notes;
  for (auto& [addr, note] : *notified_) notes += fmt::format(" {}: master {} epoch {};", addr, note.master_id, note.master_epoch);
  EXPECT_TRUE(told.ok()) << "both alive brokers learn the new master " << master << ":" << notes;
}

TEST_F(ControllerSim, TheMasterAndTheControllerLeaderDieTogether) {
  form_group();
  const int leader = leader_index();
  ASSERT_GE(leader, 0);
  world_->kill(broker_nodes_[0]);
  world_->kill(controller_nodes_[leader]);
  ASSERT_TRUE(new_master_elected(1, 90s)) << "the next controller leader elects";
  world_->start(controller_nodes_[leader]);
  world_->run_for(10s);
  for (auto& [i, c] : *controllers_) {
    const BrokerSet* set = c->replicas().find("broker-a");
    ASSERT_NE(set, nullptr) << "controller " << i;
    EXPECT_EQ(set->master_epoch, group_on_leader()->master_epoch) << "controller " << i;
  }
}

}  // namespace
}  // namespace ferry::controller
