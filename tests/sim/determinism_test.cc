// Determinism: a random workload of thousands of timers, connections and file writes, with
// crashes, restarts, partitions and torn writes, gives the same trace hash for the same seed and
// different hashes for different seeds.
#include <gtest/gtest.h>

#include <deque>

#include "tests/support/sim_test_util.h"
#include "tests/support/co_assert.h"

namespace ferry::sim::testing {
namespace {

constexpr int kNodes = 5;
constexpr std::uint16_t kPort = 7000;

// Each node listens, drains whatever arrives, and runs a loop of random actions: short sleeps,
// bare timers, file writes with occasional syncs, and connections to random peers.
class Chatter final : public NodeProcess {
 public:
  explicit Chatter(Runtime& rt) : rt_(rt) {
    auto l = rt.network().listen(Endpoint{rt.network().host(), kPort});
    if (!l.ok()) {
      ADD_FAILURE() << "listen: " << l.error().to_string();
      return;
    }
    rt.spawn(accept_loop(std::move(*l)), "accept");
    rt.spawn(act(), "act");
  }

 private:
  Task<void> accept_loop(std::unique_ptr<Listener> l) {
    for (;;) {
      auto c = co_await l->accept();
      if (!c.ok()) co_return;
      rt_.spawn(drain(std::move(*c)), "drain");
    }
  }

  Task<void> drain(std::unique_ptr<Connection> c) {
    std::vector<std::uint8_t> buf(512);
    for (;;) {
      auto n = co_await c->read_some(MutableBytes(buf.data(), buf.size()));
      if (!n.ok()) co_return;
      bytes_read_ += *n;
    }
  }

  Task<void> act() {
    auto f = rt_.fs().open("journal", OpenOptions{.create = true});
    CO_ASSERT(f.ok(), "open journal: {}", f.error().to_string());
    std::unique_ptr<File> file = std::move(*f);
    for (int i = 0; i < 600; ++i) {
      co_await rt_.sleep(Duration(rt_.random().between(0, 20'000'000)));
      for (int t = 0; t < 3; ++t) {
        (void)rt_.timers().schedule(Duration(rt_.random().between(0, 50'000'000)), [this] { ++timer_fires_; });
      }
      switch (rt_.random().below(4)) {
        case 0: {
          std::vector<std::uint8_t> data(rt_.random().between(1, 2000), static_cast<std::uint8_t>(i));
          (void)file->pwrite(file->size(), view_of(data));
          break;
        }
        case 1:
          (void)co_await file->sync();
          break;
        case 2:
          co_await talk();
          break;
        default:
          break;
      }
    }
  }

  Task<void> talk() {
    const auto peer = static_cast<std::uint32_t>(rt_.random().below(kNodes));
    const Endpoint to{fmt::format("127.0.0.{}", 10 + peer), kPort};
    auto c = co_await rt_.network().connect(to, 200ms);
    if (!c.ok()) co_return;
    std::vector<std::uint8_t> data(rt_.random().between(1, 5000), 0x5a);
    if (!(co_await (*c)->write(view_of(data))).ok()) co_return;
    conns_.push_back(std::move(*c));
    if (conns_.size() > 4) conns_.pop_front();  // bounded: the oldest is closed
  }

  Runtime& rt_;
  std::deque<std::unique_ptr<Connection>> conns_;
  std::uint64_t bytes_read_ = 0;
  std::uint64_t timer_fires_ = 0;
};

struct Outcome {
  std::uint64_t hash;
  std::uint64_t events;
  std::int64_t now_ns;
  std::string summary;
};

Outcome run_workload(std::uint64_t seed) {
  WorldOptions o = test_options(seed);
  o.disk.torn_write_on_crash_ppm = 500'000;
  o.disk.eio_on_sync_ppm = 10'000;
  o.clock.drift_max_ppm = 1000;
  o.clock.skew_max_ms = 1000;
  World world(o);
  std::vector<NodeId> nodes;
  for (int i = 0; i < kNodes; ++i) {
    nodes.push_back(world.add_node(fmt::format("n{}", i), [](Runtime& rt) { return std::make_unique<Chatter>(rt); }));
  }
  Random& faults = world.random();
  for (int round = 0; round < 20; ++round) {
    world.run_for(Duration(faults.between(50'000'000, 500'000'000)));
    const NodeId a = nodes[faults.below(kNodes)];
    const NodeId b = nodes[faults.below(kNodes)];
    switch (faults.below(5)) {
      case 0:
        world.restart(a, faults.one_in(2) ? CrashKind::process_kill : CrashKind::power_loss, Duration(faults.between(0, 300'000'000)));
        break;
      case 1:
        if (a != b) world.net().partition(a, b);
        break;
      case 2:
        world.net().heal_all();
        break;
      case 3:
        world.net().reset_node(a);
        break;
      default:
        break;
    }
  }
  world.net().heal_all();
  world.run_for(20s);
  std::uint64_t syncs = 0, crashes = 0, torn = 0;
  for (NodeId n : nodes) {
    syncs += world.node(n).disk().stats().syncs;
    crashes += world.node(n).disk().stats().crashes;
    torn += world.node(n).disk().stats().torn_sectors_kept;
  }
  const auto& net = world.net().stats();
  std::string summary = fmt::format(
      "{} events, {} connects ({} refused, {} timed out), {} resets, {} segments, {} syncs, {} crashes, "
      "{} torn sectors kept",
      world.events_run(), net.connects, net.refused, net.timed_out, net.resets, net.segments_delivered, syncs,
      crashes, torn);
  return Outcome{world.final_hash(), world.events_run(), to_ns(world.now()), std::move(summary)};
}

TEST(Determinism, SameSeedSameTraceDifferentSeedDifferentTrace) {
  const Outcome a = run_workload(42);
  const Outcome b = run_workload(42);
  const Outcome c = run_workload(43);
  EXPECT_GT(a.events, 10'000u) << "the workload is not trivial";
  EXPECT_EQ(a.hash, b.hash) << "same seed, same trace";
  EXPECT_EQ(a.events, b.events);
  EXPECT_EQ(a.now_ns, b.now_ns);
  EXPECT_NE(a.hash, c.hash) << "a different seed takes a different path";
  std::printf("seed 42: trace hash %016llx; %s\nseed 43: trace hash %016llx; %s\n",
              static_cast<unsigned long long>(a.hash), a.summary.c_str(), static_cast<unsigned long long>(c.hash),
              c.summary.c_str());
}

// The trace hash covers state, not only the schedule: a run that schedules exactly alike but
// writes other bytes (to a file, or over a connection) hashes apart.
Task<void> write_fill(Runtime* rt, std::uint8_t fill, bool over_network, Endpoint to) {
  std::vector<std::uint8_t> data(600, fill);
  if (over_network) {
    auto c = co_await rt->network().connect(to, 1s);
    CO_ASSERT(c.ok(), "connect: {}", c.error().to_string());
    const Status w = co_await (*c)->write(view_of(data));
    CO_ASSERT(w.ok(), "write: {}", w.error().to_string());
    co_await rt->sleep(100ms);
    co_return;
  }
  auto f = rt->fs().open("state", OpenOptions{.create = true});
  CO_ASSERT(f.ok(), "open: {}", f.error().to_string());
  const Status w = (*f)->pwrite(0, view_of(data));
  CO_ASSERT(w.ok(), "pwrite: {}", w.error().to_string());
  const Status synced = co_await (*f)->sync();
  CO_ASSERT(synced.ok(), "sync: {}", synced.error().to_string());
}

std::pair<std::uint64_t, std::uint64_t> hashes_of(std::uint8_t fill, bool over_network) {
  World world(test_options(77));
  auto received = std::make_shared<std::vector<std::shared_ptr<Received>>>();
  const NodeId server = world.add_node("server", [received](Runtime& rt) {
    auto l = rt.network().listen(Endpoint{rt.network().host(), kPort});
    if (l.ok()) rt.spawn(accept_all(std::move(*l), &rt, received), "accept_all");
    return std::unique_ptr<NodeProcess>();
  });
  const NodeId client = world.add_node("client");
  auto r = world.run_task(client, write_fill(&world.node(client), fill, over_network, Endpoint{world.node(server).host(), kPort}), 5s);
  EXPECT_TRUE(r.ok()) << r.report.message;
  const std::uint64_t schedule_and_bytes = world.trace_hash();
  return {schedule_and_bytes, world.final_hash()};
}

TEST(Determinism, TraceHashCoversDeliveredBytesAndDiskState) {
  const auto disk_a = hashes_of('a', false);
  const auto disk_a2 = hashes_of('a', false);
  const auto disk_b = hashes_of('b', false);
  EXPECT_EQ(disk_a, disk_a2);
  EXPECT_EQ(disk_a.first, disk_b.first) << "the same schedule (nothing was delivered)";
  EXPECT_NE(disk_a.second, disk_b.second) << "other bytes on disk, another final hash";
  const auto net_a = hashes_of('a', true);
  const auto net_b = hashes_of('b', true);
  EXPECT_EQ(net_a, hashes_of('a', true));
  EXPECT_NE(net_a.first, net_b.first) << "other bytes delivered, another trace hash";
}

}  // namespace
}  // namespace ferry::sim::testing
