// Three controllers' Raft (libraft through Ferry's raft_io and the remoting layer) in the
// simulator: a leader is elected, commands commit and apply in one order everywhere, and that
// holds through a killed leader, a whole-quorum power loss, a partitioned leader and swarm faults.
// Checked throughout: every node applies the same command at the same index (agreement), no two
// nodes lead one term, and every acknowledged proposal is in the committed log (durability).
#include <gtest/gtest.h>

#include <map>

#include "controller/raft_node.h"
#include "controller/rpc_raft_transport.h"
#include "sim/net/network.h"
#include "sim/world.h"
#include "tests/support/sim_test_util.h"
#include "tests/support/swarm_env.h"

namespace ferry::controller {
namespace {

using sim::NodeId;
using sim::World;

constexpr std::uint16_t kPort = 9878;

// What the test sees across every node and incarnation.
struct Observed {
  std::map<std::uint64_t, std::string> committed;  // index -> command, from whoever applied it first
  std::map<std::uint64_t, raft_id> leader_of_term;
  std::map<raft_id, class Host*> hosts;            // the running incarnations
  std::map<raft_id, std::vector<std::string>> applied;  // per node, this incarnation
};

class Host {
 public:
  Host(Runtime& rt, raft_id id, std::vector<RaftPeer> peers, std::shared_ptr<Observed> seen)
      : rt_(rt),
        id_(id),
        seen_(std::move(seen)),
        server_(rt),
        client_(rt),
        transport_(rt, client_),
        node_(rt, RaftOptions{id, std::move(peers), "controller/raft"}, transport_,
              [this](std::uint64_t index, Bytes command) { applied(index, command); }) {
    seen_->applied[id_].clear();
    RpcRaftTransport::serve(server_, node_);
    Status listening = server_.start(Endpoint{rt.network().host(), kPort});
    EXPECT_TRUE(listening.ok()) << listening.error().to_string();
    node_.on_reset([this] { seen_->applied[id_].clear(); });
    node_.on_leadership_change([this] {
      if (!node_.is_ready()) return;
      auto [it, fresh] = seen_->leader_of_term.emplace(node_.current_term(), id_);
      EXPECT_EQ(it->second, id_) << "two leaders in term " << node_.current_term();
    });
    Status started = node_.start();
    EXPECT_TRUE(started.ok()) << started.error().to_string();
    seen_->hosts[id_] = this;
  }
  ~Host() {
    seen_->hosts.erase(id_);
    server_.stop();
    node_.stop();
  }
  RaftNode& node() { return node_; }

 private:
  void applied(std::uint64_t index, Bytes command) {
    const std::string text(as_text(command));
    auto [it, fresh] = seen_->committed.emplace(index, text);
    EXPECT_EQ(it->second, text) << "controller " << id_ << " applied another command at index " << index;
    seen_->applied[id_].push_back(text);
  }

  Runtime& rt_;
  raft_id id_;
  std::shared_ptr<Observed> seen_;
  remoting::RpcServer server_;
  remoting::RpcClient client_;
  RpcRaftTransport transport_;
  RaftNode node_;
};

class RaftSim : public ::testing::Test {
 protected:
  void SetUp() override {
    options_ = ferry::testing::world_options(sim::testing::test_options(seed_));
    replay_ = std::make_unique<ferry::testing::ReplayTrace>(options_);
    world_ = std::make_unique<World>(options_);
    std::vector<RaftPeer> peers;
    for (raft_id id = 1; id <= 3; ++id) {
      // World gives node n the host 127.0.0.<10+n>.
      peers.push_back(RaftPeer{id, fmt::format("127.0.0.{}:{}", 10 + (id - 1), kPort)});
    }
    for (raft_id id = 1; id <= 3; ++id) {
      auto seen = seen_;
      nodes_[id] = world_->add_node(fmt::format("controller-{}", id), [id, peers, seen](Runtime& rt) {
        return sim::hosted(std::make_unique<Host>(rt, id, peers, seen));
      });
    }
  }

  // The node that leads and serves now, if any (0: none).
  raft_id ready_leader_id() {
    for (auto& [id, host] : seen_->hosts) {
      if (host->node().is_ready()) return id;
    }
    return 0;
  }
  Host* ready_leader() {
    const raft_id id = ready_leader_id();
    return id == 0 ? nullptr : seen_->hosts[id];
  }

  static Task<Status> propose_on(RaftNode* node, std::string command) {
    auto index = co_await node->propose(std::vector<std::uint8_t>(command.begin(), command.end()));
    if (!index.ok()) co_return index.error();
    co_return Status{};
  }

  // Proposes `command` on whoever leads, retrying for up to `limit`; true when acknowledged.
  bool propose(const std::string& command, Duration limit = 30s) {
    const MonoTime until = world_->now() + limit;
    while (world_->now() < until) {
      raft_id id = 0;
      world_->run_until([&] { return (id = ready_leader_id()) != 0; }, until - world_->now());
      if (id == 0) return false;
      auto run = world_->run_task(nodes_[id], propose_on(&seen_->hosts[id]->node(), command), 10s);
      if (run.ok() && run.value->ok()) {
        acked_.push_back(command);
        return true;
      }
      world_->run_for(200ms);
    }
    return false;
  }

  // Every node up applies the same commands, and every acknowledged one is committed.
  void expect_converged(Duration limit = 60s) {
    auto converged = [&] {
      if (seen_->hosts.size() != 3) return false;
      const auto& first = seen_->applied[1];
      for (raft_id id = 2; id <= 3; ++id) {
        if (seen_->applied[id] != first) return false;
      }
      return first.size() == seen_->committed.size();
    };
    auto report = world_->run_until(converged, limit);
    EXPECT_TRUE(report.ok()) << report.message << "; applied " << seen_->applied[1].size() << "/"
                             << seen_->applied[2].size() << "/" << seen_->applied[3].size()
                             << ", committed " << seen_->committed.size();
    std::set<std::string> committed;
    for (const auto& [index, command] : seen_->committed) committed.insert(command);
    for (const std::string& c : acked_) EXPECT_TRUE(committed.contains(c)) << c << " was acknowledged but is lost";
  }

  std::uint64_t seed_ = 1;
  sim::WorldOptions options_;
  std::unique_ptr<ferry::testing::ReplayTrace> replay_;
  std::unique_ptr<World> world_;
  std::shared_ptr<Observed> seen_ = std::make_shared<Observed>();
  std::map<raft_id, NodeId> nodes_;
  std::vector<std::string> acked_;
};

TEST_F(RaftSim, ALeaderIsElectedAndCommandsApplyInOneOrderEverywhere) {
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(propose(fmt::format("cmd-{}", i))) << i;
  expect_converged();
  EXPECT_EQ(seen_->applied[1].front(), "cmd-0");
}

TEST_F(RaftSim, AKilledLeaderIsReplacedAndCatchesUpWhenItReturns) {
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(propose(fmt::format("a-{}", i)));
  const raft_id old = ready_leader_id();
  ASSERT_NE(old, 0u) << "no leader";
  world_->kill(nodes_[old]);
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(propose(fmt::format("b-{}", i))) << i;
  ASSERT_NE(ready_leader(), nullptr);
  world_->start(nodes_[old]);
  expect_converged();
  EXPECT_GE(seen_->leader_of_term.size(), 2u);
}

TEST_F(RaftSim, AcknowledgedCommandsSurviveAPowerLossOfTheWholeQuorum) {
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(propose(fmt::format("c-{}", i)));
  for (raft_id id = 1; id <= 3; ++id) world_->power_off(nodes_[id]);
  world_->run_for(1s);
  for (raft_id id = 1; id <= 3; ++id) world_->start(nodes_[id]);
  ASSERT_TRUE(propose("after-power-loss"));
  expect_converged();
}

TEST_F(RaftSim, APartitionedLeaderLosesItsTermAndTheMajorityGoesOn) {
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(propose(fmt::format("d-{}", i)));
  const raft_id old = ready_leader_id();
  ASSERT_NE(old, 0u) << "no leader";
  world_->net().isolate(nodes_[old]);
  world_->run_for(5s);
  EXPECT_FALSE(seen_->hosts[old]->node().is_ready()) << "an isolated leader still serves";
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(propose(fmt::format("e-{}", i)));
  world_->net().heal_all();
  expect_converged();
}

TEST_F(RaftSim, SameSeedSameTrace) {
  auto run = [](std::uint64_t seed) {
    auto seen = std::make_shared<Observed>();
    World world(ferry::testing::world_options(sim::testing::test_options(seed)));
    std::vector<RaftPeer> peers;
    for (raft_id id = 1; id <= 3; ++id) peers.push_back(RaftPeer{id, fmt::format("127.0.0.{}:{}", 9 + id, kPort)});
    for (raft_id id = 1; id <= 3; ++id) {
      world.add_node(fmt::format("controller-{}", id), [id, peers, seen](Runtime& rt) {
        return sim::hosted(std::make_unique<Host>(rt, id, peers, seen));
      });
    }
    world.run_for(20s);
    world.kill(NodeId{0});
    world.run_for(20s);
    return world.final_hash();
  };
  EXPECT_EQ(run(options_.seed), run(options_.seed));
}

}  // namespace
}  // namespace ferry::controller
