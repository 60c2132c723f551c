// Simulation speed: an idle 10-node world where every node sends a heartbeat to its neighbour
// every second, for one simulated hour. Prints the ratio; asserts only that the run completed.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>

#include "tests/support/sim_test_util.h"
#include "tests/support/co_assert.h"

namespace ferry::sim::testing {
namespace {

constexpr int kNodes = 10;
constexpr std::uint16_t kPort = 6000;

class Heartbeater final : public NodeProcess {
 public:
  Heartbeater(Runtime& rt, std::string neighbour) : rt_(rt) {
    auto l = rt.network().listen(Endpoint{rt.network().host(), kPort});
    if (!l.ok()) {
      ADD_FAILURE() << "listen: " << l.error().to_string();
      return;
    }
    rt.spawn(accept_loop(std::move(*l)), "accept");
    rt.spawn(beat(Endpoint{std::move(neighbour), kPort}), "beat");
  }
  std::uint64_t received() const { return received_; }

 private:
  Task<void> accept_loop(std::unique_ptr<Listener> l) {
    for (;;) {
      auto c = co_await l->accept();
      if (!c.ok()) co_return;
      rt_.spawn(drain(std::move(*c)), "drain");
    }
  }
  Task<void> drain(std::unique_ptr<Connection> c) {
    std::vector<std::uint8_t> buf(256);
    for (;;) {
      auto n = co_await c->read_some(MutableBytes(buf.data(), buf.size()));
      if (!n.ok()) co_return;
      received_ += *n;
    }
  }
  Task<void> beat(Endpoint to) {
    co_await rt_.sleep(10ms);  // let every node listen first
    auto c = co_await rt_.network().connect(to, 1s);
    CO_ASSERT(c.ok(), "connect: {}", c.error().to_string());
    const std::vector<std::uint8_t> heartbeat(32, 0x42);
    for (;;) {
      co_await rt_.sleep(1s);
      const Status w = co_await (*c)->write(view_of(heartbeat));
      CO_ASSERT(w.ok(), "heartbeat write: {}", w.error().to_string());
    }
  }

  Runtime& rt_;
  std::uint64_t received_ = 0;
};

TEST(Speed, IdleTenNodeWorldWithHeartbeats) {
  World world(test_options(1));
  std::vector<NodeId> nodes;
  for (int i = 0; i < kNodes; ++i) {
    const std::string neighbour = fmt::format("127.0.0.{}", 10 + (i + 1) % kNodes);
    nodes.push_back(world.add_node(fmt::format("n{}", i), [neighbour](Runtime& rt) {
      return hosted(std::make_unique<Heartbeater>(rt, neighbour));
    }));
  }
  const Duration simulated = 1h;
  const auto start = std::chrono::steady_clock::now();
  world.run_for(simulated);
  const double real_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  auto* hb = dynamic_cast<Hosted<Heartbeater>*>(world.node(nodes[0]).process());
  ASSERT_NE(hb, nullptr);
  EXPECT_GE(hb->get().received(), 32u * 3590) << "heartbeats flowed for the whole hour";
  std::printf("sim speed: %.0f simulated s per real s (%.0f s simulated in %.3f s real, %llu events)\n",
              to_seconds(simulated) / real_s, to_seconds(simulated), real_s,
              static_cast<unsigned long long>(world.events_run()));
}

}  // namespace
}  // namespace ferry::sim::testing
