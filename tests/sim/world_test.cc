// The world: run_task reports (value, deadlock, time limit), crash semantics (tasks destroyed
// before the component, never resumed), pause/resume, delayed restart, clocks and buggify.
#include <gtest/gtest.h>

#include <set>

#include "sim/swarm.h"
#include "tests/support/sim_test_util.h"
#include "tests/support/co_assert.h"

namespace ferry::sim::testing {
namespace {

Task<int> add_after(Runtime* rt, int a, int b) {
  co_await rt->sleep(250ms);
  co_return a + b;
}

TEST(World, RunTaskReturnsTheValueInVirtualTime) {
  World world(test_options(1));
  const NodeId n = world.add_node("n");
  auto r = world.run_task(n, add_after(&world.node(n), 2, 3), 1s);
  ASSERT_TRUE(r.ok()) << r.report.message;
  EXPECT_EQ(*r.value, 5);
  EXPECT_EQ(world.now(), MonoTime(250ms));
  EXPECT_EQ(world.node(n).clock().wall_ms(), kDefaultEpochWallMs + 250);
}

Task<void> wait_forever(Runtime* rt) {
  auto l = rt->network().listen(Endpoint{rt->network().host(), 1});
  CO_ASSERT(l.ok(), "listen: {}", l.error().to_string());
  (void)co_await (*l)->accept();  // nobody will ever connect
}

TEST(World, DeadlockIsReportedNotHung) {
  World world(test_options(2));
  const NodeId n = world.add_node("n");
  auto r = world.run_task(n, wait_forever(&world.node(n)), 1h);
  EXPECT_EQ(r.report.stop, Stop::deadlock);
  EXPECT_NE(r.report.message.find("deadlock"), std::string::npos) << r.report.message;
  EXPECT_FALSE(r.value.has_value());
  EXPECT_LT(world.now(), MonoTime(1s)) << "detected at once, not at the time limit";
}

TEST(World, TimeLimitIsReported) {
  World world(test_options(3));
  const NodeId n = world.add_node("n");
  auto r = world.run_task(n, add_after(&world.node(n), 1, 1), 100ms);
  EXPECT_EQ(r.report.stop, Stop::time_limit);
  EXPECT_EQ(world.now(), MonoTime(100ms));
}

struct Probe {
  std::vector<std::string>* log;
  std::string name;
  ~Probe() { log->push_back(name + " destroyed"); }
};

Task<void> ticker(Runtime* rt, int* ticks, std::vector<std::string>* log) {
  Probe p{log, "ticker"};
  for (;;) {
    co_await rt->sleep(100ms);
    ++*ticks;
  }
}

Task<void> syncer(Runtime* rt, int* synced, std::vector<std::string>* log) {
  Probe p{log, "syncer"};
  auto f = rt->fs().open("f", OpenOptions{.create = true});
  CO_ASSERT(f.ok(), "open: {}", f.error().to_string());
  const auto b = bytes_of("data");
  const Status w = (*f)->pwrite(0, view_of(b));
  CO_ASSERT(w.ok(), "pwrite: {}", w.error().to_string());
  (void)co_await (*f)->sync();
  ++*synced;
}

// A component whose destructor records that its tasks were already gone.
class Recorder final : public NodeProcess {
 public:
  Recorder(Runtime& rt, std::vector<std::string>* log, int* ticks) : log_(log) {
    rt.spawn(ticker(&rt, ticks, log), "ticker");
  }
  ~Recorder() override { log_->push_back("component destroyed"); }

 private:
  std::vector<std::string>* log_;
};

TEST(World, CrashDestroysTasksBeforeTheComponentAndNeverResumesThem) {
  WorldOptions o = test_options(4);
  o.disk.sync_latency = 50ms;
  std::vector<std::string> log;  // outlives the world (its tasks write here when destroyed)
  int ticks = 0, synced = 0;
  World world(o);
  const NodeId n = world.add_node("n", [&](Runtime& rt) { return std::make_unique<Recorder>(rt, &log, &ticks); });
  world.run_for(1s + 1ms);
  EXPECT_EQ(ticks, 10);
  world.node(n).spawn(syncer(&world.node(n), &synced, &log));
  world.run_for(10ms);  // the sync is in flight
  world.power_off(n);
  EXPECT_EQ(log, (std::vector<std::string>{"ticker destroyed", "syncer destroyed", "component destroyed"}));
  world.run_for(10s);
  EXPECT_EQ(ticks, 10) << "a destroyed task never runs again";
  EXPECT_EQ(synced, 0) << "a completion for a crashed life never resumes anything";
  EXPECT_EQ(world.node(n).executor().tasks().size(), 0u);
  EXPECT_EQ(dynamic_cast<SimTimers&>(world.node(n).timers()).pending(), 0u);
}

TEST(World, PauseDefersEventsAndResumeRunsThem) {
  std::vector<std::string> log;
  int ticks = 0;
  World world(test_options(5));
  const NodeId n = world.add_node("n", [&](Runtime& rt) { return std::make_unique<Recorder>(rt, &log, &ticks); });
  world.run_for(1s + 1ms);
  EXPECT_EQ(ticks, 10);
  world.pause(n);
  world.run_for(2s);
  EXPECT_EQ(ticks, 10) << "a paused node runs nothing";
  EXPECT_GT(world.node(n).deferred_events(), 0u);
  world.resume(n);
  world.run_for(0ns);
  EXPECT_EQ(ticks, 11) << "the deferred timer runs at resume";
  world.run_for(1s);
  EXPECT_EQ(ticks, 21);
}

TEST(World, PausedNodeReadsWhatArrivedAfterResume) {
  World world(test_options(6));
  const NodeId server = world.add_node("server");
  const NodeId client = world.add_node("client");
  SimNode& s = world.node(server);
  auto l = s.network().listen(Endpoint{s.network().host(), 9000});
  ASSERT_TRUE(l.ok());
  auto conns = std::make_shared<std::vector<std::shared_ptr<Received>>>();
  s.spawn(accept_all(std::move(*l), &s, conns));
  struct Client {
    static Task<void> run(Runtime* rt, Endpoint to) {
      auto c = co_await rt->network().connect(to, 1s);
      CO_ASSERT(c.ok(), "connect: {}", c.error().to_string());
      co_await rt->sleep(1s);
      const auto b = bytes_of("while you slept");
      const Status w = co_await (*c)->write(view_of(b));
      CO_ASSERT(w.ok(), "write: {}", w.error().to_string());
      co_await rt->sleep(1h);
    }
  };
  world.node(client).spawn(Client::run(&world.node(client), Endpoint{s.network().host(), 9000}));
  world.run_for(500ms);
  ASSERT_EQ(conns->size(), 1u);
  world.pause(server);
  world.run_for(2s);
  EXPECT_EQ((*conns)[0]->bytes, "");
  world.resume(server);
  world.run_for(10ms);
  EXPECT_EQ((*conns)[0]->bytes, "while you slept");
}

TEST(World, RestartAfterADelayRunsTheFactoryAgain) {
  int built = 0;
  std::vector<std::string> log;
  int ticks = 0;
  World world(test_options(7));
  const NodeId n = world.add_node("n", [&](Runtime& rt) {
    ++built;
    return std::make_unique<Recorder>(rt, &log, &ticks);
  });
  EXPECT_EQ(world.node(n).incarnation(), 1u);
  world.restart(n, CrashKind::power_loss, 5s);
  world.run_for(4s);
  EXPECT_FALSE(world.node(n).up());
  EXPECT_EQ(ticks, 0);
  world.run_for(2s);
  EXPECT_TRUE(world.node(n).up());
  EXPECT_EQ(built, 2);
  EXPECT_EQ(ticks, 10) << "ticks at 5.1 s ... 6.0 s";
  EXPECT_GT(world.node(n).incarnation(), 1u);
}

Task<void> sleep_for(Runtime* rt, Duration d) { co_await rt->sleep(d); }

TEST(World, ClocksHaveSkewAndDrift) {
  WorldOptions o = test_options(8);
  o.clock.skew_max_ms = 5000;
  o.clock.drift_max_ppm = 50'000;
  World world(o);
  const NodeId a = world.add_node("a");
  const NodeId b = world.add_node("b");
  EXPECT_NE(world.node(a).sim_clock().skew_ms(), world.node(b).sim_clock().skew_ms());
  EXPECT_NE(world.node(a).sim_clock().drift_ppm(), 0);
  EXPECT_NEAR(static_cast<double>(world.node(a).clock().wall_ms()), static_cast<double>(kDefaultEpochWallMs), 5000);

  ASSERT_TRUE(world.run_task(a, sleep_for(&world.node(a), 100s), 200s).ok());
  EXPECT_GE(world.node(a).clock().now(), MonoTime(100s)) << "a timer fires once the node's own clock passed it";
  EXPECT_LT(world.node(a).clock().now(), MonoTime(100s + 1ms));
  const double expected_world_s = 100.0 / (1.0 + static_cast<double>(world.node(a).sim_clock().drift_ppm()) / 1e6);
  EXPECT_NEAR(to_seconds(world.now().time_since_epoch()), expected_world_s, 0.01);

  const WallMs before = world.node(b).clock().wall_ms();
  world.jump_wall_clock(b, -60'000);
  EXPECT_EQ(world.node(b).clock().wall_ms(), before - 60'000);
}

TEST(World, BuggifyIsOffUnlessEnabledAndSeeded) {
  {
    World world(test_options(9));
    const NodeId n = world.add_node("n");
    for (int i = 0; i < 100; ++i) EXPECT_FALSE(FERRY_BUGGIFY(world.node(n)));
  }
  auto draws = [](std::uint64_t seed) {
    WorldOptions o = test_options(seed);
    o.buggify.enabled = true;
    o.buggify.site_enabled_ppm = 1'000'000;
    o.buggify.fire_ppm = 500'000;
    World world(o);
    const NodeId n = world.add_node("n");
    std::string out;
    for (int i = 0; i < 64; ++i) out += FERRY_BUGGIFY(world.node(n)) ? '1' : '0';
    return out;
  };
  EXPECT_EQ(draws(10), draws(10));
  EXPECT_NE(draws(10), draws(11));
  EXPECT_NE(draws(10).find('1'), std::string::npos);
}

TEST(World, RunTaskOnADownNodeOrACrashedTaskIsReported) {
  World world(test_options(12));
  const NodeId n = world.add_node("n");
  world.power_off(n);
  auto r = world.run_task(n, add_after(&world.node(n), 1, 2), 1s);
  EXPECT_EQ(r.report.stop, Stop::destroyed);

  world.start(n);
  world.schedule(world.now() + 100ms, EventTag{}, [&world, n] { world.power_off(n); });
  r = world.run_task(n, add_after(&world.node(n), 1, 2), 1s);
  EXPECT_EQ(r.report.stop, Stop::destroyed) << r.report.message;
  EXPECT_EQ(world.now(), MonoTime(100ms));
}

TEST(World, SwarmDrawsValidConfigurationsFromTheSeed) {
  std::set<std::int64_t> latencies;
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    const WorldOptions o = swarm_options(seed);
    EXPECT_EQ(o.seed, seed);
    EXPECT_EQ(swarm_options(seed).network.latency_min, o.network.latency_min);
    latencies.insert(o.network.latency_min.count());
    World world(o);  // checks the options
    (void)world.add_node("n");
    world.run_for(1s);
  }
  EXPECT_GT(latencies.size(), 40u);
}

}  // namespace
}  // namespace ferry::sim::testing
