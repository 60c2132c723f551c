// The broker's controller client against three real controllers in the simulator: three brokers
// of one group take ids 1-3 (kept in their identity files across a restart), the first becomes
// master and grows the SyncStateSet (only it may), and when it dies the others learn the new master the controllers elected — by
// NOTIFY_BROKER_ROLE_CHANGED or, when that oneway is lost, by their poll.
#include <gtest/gtest.h>

#include <map>

#include "broker/controller_client.h"
#include "controller/controller.h"
#include "remoting/request_code.h"
#include "sim/world.h"
#include "tests/support/sim_test_util.h"
#include "tests/support/swarm_env.h"

namespace ferry::broker {
namespace {

using sim::NodeId;
using sim::World;

constexpr std::uint16_t kControllerPort = 9878;
constexpr std::uint16_t kBrokerPort = 10911;

std::string host_of(int node) { return fmt::format("127.0.0.{}", 10 + node); }

controller::ControllerConfig controller_config(int self) {
  controller::ControllerConfig c;
  for (int i = 0; i < 3; ++i) {
    c.peers.push_back(controller::ControllerPeer{fmt::format("n{}", i), fmt::format("{}:{}", host_of(i), kControllerPort)});
  }
  c.self = fmt::format("n{}", self);
  return c;
}

// A broker node reduced to its controller-mode membership: a server for 1008, the client.
struct Member {
  Member(Runtime& rt, std::shared_ptr<std::map<int, Member*>> members, int index)
      : server(rt), rpc(rt), members(std::move(members)), index(index) {
    ControllerClientConfig c;
    c.broker_name = "broker-a";
    c.broker_addr = fmt::format("{}:{}", rt.network().host(), kBrokerPort);
    for (int i = 0; i < 3; ++i) c.controller_addrs.push_back(fmt::format("{}:{}", host_of(i), kControllerPort));
    client = std::make_unique<ControllerClient>(rt, rpc, c, [] { return ControllerClient::Progress{1, 1000, 1000}; },
                                                [this](const GroupView& v) { views.push_back(v); });
    server.register_processor(remoting::request_code::NOTIFY_BROKER_ROLE_CHANGED,
                              [this](remoting::RequestContext ctx) -> Task<std::optional<remoting::RemotingCommand>> {
                                client->handle_notify(ctx.request);
                                co_return std::nullopt;
                              });
    Status s = server.start(Endpoint{rt.network().host(), kBrokerPort});
    EXPECT_TRUE(s.ok()) << s.error().to_string();
    (*this->members)[index] = this;
  }
  ~Member() {
    members->erase(index);
    server.stop();
  }
  remoting::RpcServer server;
  remoting::RpcClient rpc;
  std::unique_ptr<ControllerClient> client;
  std::vector<GroupView> views;
  std::shared_ptr<std::map<int, Member*>> members;
  int index;
};

class ControllerClientTest : public ::testing::Test {
 protected:
  void SetUp() override {
    options_ = ferry::testing::world_options(sim::testing::test_options(21));
    replay_ = std::make_unique<ferry::testing::ReplayTrace>(options_);
    world_ = std::make_unique<World>(options_);
    for (int i = 0; i < 3; ++i) {
      world_->add_node(fmt::format("controller-{}", i), [i](Runtime& rt) {
        auto c = std::make_unique<controller::Controller>(rt, controller_config(i));
        Status s = c->start();
        EXPECT_TRUE(s.ok()) << s.error().to_string();
        return sim::hosted(std::move(c));
      });
    }
    for (int i = 0; i < 3; ++i) {
      auto members = members_;
      brokers_.push_back(world_->add_node(fmt::format("broker-{}", i), [members, i](Runtime& rt) {
        return sim::hosted(std::make_unique<Member>(rt, members, i));
      }));
    }
  }

  static Task<Status> start(ControllerClient* c) { co_return co_await c->start(60s); }
  // As a master's periodic SyncStateSet check does: again while a member's heartbeats have not
  // reached the controller leader yet (2006, lost oneways under swarm), for up to 20 tries.
  static Task<Status> alter(Runtime* rt, ControllerClient* c, std::set<std::int64_t> set) {
    Status last;
    for (int attempt = 0; attempt < 20; ++attempt) {
      last = co_await c->alter_sync_state_set(set, 20s);
      if (last.ok() || last.error().detail.find("alter refused: 2006") == std::string::npos) co_return last;
      co_await rt->sleep(1s);
    }
    co_return last;
  }
  void start_member(int i) {
    auto r = world_->run_task(brokers_[i], start((*members_)[i]->client.get()), 90s);
    ASSERT_TRUE(r.ok()) << r.report.message;
    ASSERT_TRUE(r.value->ok()) << r.value->error().to_string();
  }

  sim::WorldOptions options_;
  std::unique_ptr<ferry::testing::ReplayTrace> replay_;
  std::unique_ptr<World> world_;
  std::shared_ptr<std::map<int, Member*>> members_ = std::make_shared<std::map<int, Member*>>();
  std::vector<NodeId> brokers_;
};

TEST_F(ControllerClientTest, BrokersTakeIdsKeepThemAndFollowTheElectedMaster) {
  for (int i = 0; i < 3; ++i) start_member(i);
  for (int i = 0; i < 3; ++i) EXPECT_EQ((*members_)[i]->client->replica_id(), i + 1);
  auto agreed = world_->run_until([&] {
    for (auto& [i, m] : *members_) {
      if (m->client->view().master_id != 1 || m->client->view().master_epoch != 1) return false;
    }
    return true;
  }, 20s);
  ASSERT_TRUE(agreed.ok()) << "every broker learns master 1";
  // The master reports its slaves caught up (the HA layer's decision): the SyncStateSet grows.
  auto grown = world_->run_task(brokers_[0], alter(&world_->node(brokers_[0]), (*members_)[0]->client.get(), {1, 2, 3}), 60s);
  ASSERT_TRUE(grown.ok());
  ASSERT_TRUE(grown.value->ok()) << grown.value->error().to_string();
  EXPECT_EQ((*members_)[0]->client->view().sync_state_set, (std::set<std::int64_t>{1, 2, 3}));
  auto refused = world_->run_task(brokers_[1], alter(&world_->node(brokers_[1]), (*members_)[1]->client.get(), {2}), 60s);
  ASSERT_TRUE(refused.ok());
  EXPECT_FALSE(refused.value->ok()) << "only the master alters the set";

  // A restarted broker keeps its id (brokerIdentity) and learns the master again.
  world_->restart(brokers_[2], sim::CrashKind::process_kill);
  world_->run_for(1s);
  start_member(2);
  EXPECT_EQ((*members_)[2]->client->replica_id(), 3);

  // The master dies: the controllers elect another, and both others learn it.
  world_->kill(brokers_[0]);
  auto moved = world_->run_until([&] {
    int n = 0;
    for (auto& [i, m] : *members_) n += m->client->view().master_id >= 2 && m->client->view().master_epoch == 2;
    return n == 2;
  }, 40s);
  EXPECT_TRUE(moved.ok()) << "both survivors follow the new master";
  if (moved.ok()) {
    EXPECT_EQ((*members_)[1]->client->view().master_id, (*members_)[2]->client->view().master_id);
  }
}

}  // namespace
}  // namespace ferry::broker
