// The kinds of node failure and what each one's peers see: a process kill (reset at once), a power
// loss (nothing, then the dead-peer timeout, or a reset once the host is back), a host gone silent
// (both sides time out; its process runs on), and partitions longer or shorter than the timeout.
#include <gtest/gtest.h>

#include "sim/net/network.h"
#include "tests/support/sim_test_util.h"
#include "tests/support/co_assert.h"

namespace ferry::sim::testing {
namespace {

constexpr std::uint16_t kPort = 7000;

// A server node that accepts and drains, and a client node holding one connection to it, read by
// a task whose end (and how it ended) the test inspects.
struct Pair {
  World world;
  NodeId server, client;
  std::shared_ptr<std::vector<std::shared_ptr<Received>>> at_server = std::make_shared<std::vector<std::shared_ptr<Received>>>();
  std::shared_ptr<Received> at_client = std::make_shared<Received>();

  explicit Pair(std::uint64_t seed) : world(test_options(seed)) {
    auto log = at_server;
    server = world.add_node("server", [log](Runtime& rt) {
      auto l = rt.network().listen(Endpoint{rt.network().host(), kPort});
      if (!l.ok()) {
        ADD_FAILURE() << "listen: " << l.error().to_string();
      } else {
        rt.spawn(accept_all(std::move(*l), &rt, log), "accept_all");
      }
      return std::unique_ptr<NodeProcess>();
    });
    client = world.add_node("client");
  }
  Endpoint endpoint() { return Endpoint{world.node(server).host(), kPort}; }

  // Connects from the client and starts its reader; true when connected.
  bool connect() {
    auto r = world.run_task(client, dial(&world.node(client), endpoint()), 5s);
    if (!r.ok() || !r.value->ok()) return false;
    world.node(client).spawn(read_all(std::move(**r.value), at_client), "read_all");
    world.run_for(10ms);
    return true;
  }
  static Task<Result<std::unique_ptr<Connection>>> dial(Runtime* rt, Endpoint to) {
    co_return co_await rt->network().connect(to, 2s);
  }
  Result<std::unique_ptr<Connection>> try_connect() {
    auto r = world.run_task(client, dial(&world.node(client), endpoint()), 10s);
    if (!r.ok()) return Error(Errc::cancelled, r.report.message);
    return std::move(*r.value);
  }
};

TEST(CrashKinds, AProcessKillResetsItsPeersAtOnceAndRefusesConnects) {
  Pair p(1);
  ASSERT_TRUE(p.connect());
  p.world.kill(p.server);
  p.world.run_for(100ms);
  EXPECT_TRUE(p.at_client->ended);
  EXPECT_EQ(p.at_client->end, Errc::reset);
  auto c = p.try_connect();
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code, Errc::refused) << "the host is up; nobody listens";
}

TEST(CrashKinds, APowerLossTellsPeersNothingUntilTheirDeadPeerTimeout) {
  Pair p(2);
  ASSERT_TRUE(p.connect());
  const MonoTime off = p.world.now();
  p.world.power_off(p.server);
  p.world.run_for(kDeadPeerTimeout - 1s);
  EXPECT_FALSE(p.at_client->ended) << "a powered-off host sends no reset";
  p.world.run_for(2s);
  EXPECT_TRUE(p.at_client->ended);
  EXPECT_EQ(p.at_client->end, Errc::timed_out);
  EXPECT_GE(p.world.now() - off, kDeadPeerTimeout);
  EXPECT_EQ(p.world.net().stats().dead_peer_timeouts, 1u);
  auto c = p.try_connect();
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.error().code, Errc::timed_out) << "nobody answers for a host without power";
}

TEST(CrashKinds, AHostBackFromAPowerLossResetsItsOldConnections) {
  Pair p(3);
  ASSERT_TRUE(p.connect());
  p.world.power_off(p.server);
  p.world.run_for(5s);
  EXPECT_FALSE(p.at_client->ended);
  p.world.start(p.server);
  p.world.run_for(100ms);
  EXPECT_TRUE(p.at_client->ended);
  EXPECT_EQ(p.at_client->end, Errc::reset);
  EXPECT_TRUE(p.try_connect().ok()) << "the new life listens again";
}

// A task that ticks every second on the silent node: its process keeps running.
Task<void> count_ticks(Runtime* rt, int* ticks) {
  for (;;) {
    co_await rt->sleep(1s);
    ++*ticks;
  }
}

TEST(CrashKinds, ASilentHostRunsOnWhileBothSidesTimeOut) {
  Pair p(4);
  ASSERT_TRUE(p.connect());
  int ticks = 0;
  p.world.node(p.server).spawn(count_ticks(&p.world.node(p.server), &ticks));
  p.world.silence(p.server);
  p.world.run_for(kDeadPeerTimeout - 1s);
  EXPECT_FALSE(p.at_client->ended);
  p.world.run_for(2s);
  EXPECT_EQ(p.at_client->end, Errc::timed_out);
  ASSERT_EQ(p.at_server->size(), 1u);
  EXPECT_EQ((*p.at_server)[0]->end, Errc::timed_out) << "the silent side times out too";
  EXPECT_GE(ticks, 30) << "the silent host's process kept running";
  EXPECT_EQ(p.try_connect().error().code, Errc::timed_out);
  p.world.net().heal_all();
  EXPECT_TRUE(p.try_connect().ok());
}

TEST(CrashKinds, APartitionBreaksConnectionsOnlyWhenItOutlastsTheTimeout) {
  Pair p(5);
  ASSERT_TRUE(p.connect());
  p.world.net().partition(p.server, p.client);
  p.world.run_for(kDeadPeerTimeout / 2);
  p.world.net().heal_all();
  p.world.run_for(kDeadPeerTimeout);
  EXPECT_FALSE(p.at_client->ended) << "a short partition only delays";
  p.world.net().partition(p.server, p.client);
  p.world.run_for(kDeadPeerTimeout / 2);
  p.world.net().heal_all();
  p.world.net().partition(p.server, p.client);  // down again: the clock starts over
  p.world.run_for(kDeadPeerTimeout - 1s);
  EXPECT_FALSE(p.at_client->ended);
  p.world.run_for(2s);
  EXPECT_EQ(p.at_client->end, Errc::timed_out);
  EXPECT_EQ(p.world.net().stats().dead_peer_timeouts, 1u);
}

}  // namespace
}  // namespace ferry::sim::testing
