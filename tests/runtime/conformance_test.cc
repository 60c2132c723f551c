// Runtime conformance: the same cases against every runtime (registered at the bottom).
// This file: timers, sleep, executor and offload. Network cases: conformance_network_test.cc;
// file system cases: conformance_files_test.cc.
#include <stdexcept>
#include <vector>

#include "tests/runtime/conformance_fixture.h"

namespace ferry::testing {
namespace {

using namespace std::chrono_literals;

Task<void> timers_case(Runtime* rt, std::vector<int>* order, Checks* checks) {
  Timers& timers = rt->timers();
  const MonoTime start = rt->now();
  (void)timers.schedule(30ms, [order] { order->push_back(3); });
  (void)timers.schedule(10ms, [order] { order->push_back(1); });
  const TimerId doomed = timers.schedule(20ms, [order] { order->push_back(-1); });
  (void)timers.schedule(20ms, [order] { order->push_back(2); });
  (void)timers.schedule(0ms, [order] { order->push_back(0); });
  // A timer that fires first may cancel one that fires later.
  const TimerId late = timers.schedule(40ms, [order] { order->push_back(-2); });
  (void)timers.schedule(15ms, [t = &timers, late, order] {
    order->push_back(t->cancel(late) ? 10 : -10);
  });
  TASK_CHECK(checks, timers.cancel(doomed));
  TASK_CHECK(checks, !timers.cancel(doomed));  // cancelling twice is a no-op
  TASK_CHECK(checks, !timers.cancel(TimerId{}));
  TASK_CHECK(checks, order->empty());  // nothing runs inline
  co_await rt->sleep(60ms);
  TASK_CHECK(checks, rt->now() - start >= 60ms);
}

TEST_P(RuntimeConformance, TimersFireInDeadlineOrderAndCanBeCancelled) {
  std::vector<int> order;
  Checks checks;
  ASSERT_TRUE(run(timers_case(&rt(), &order, &checks)));
  EXPECT_THAT(checks.failures(), ::testing::IsEmpty());
  EXPECT_EQ(order, (std::vector<int>{0, 1, 10, 2, 3}));
}

Task<void> sleep_case(Runtime* rt, std::vector<Duration>* slept) {
  for (const Duration d : {Duration(0), Duration(5ms), Duration(25ms)}) {
    const MonoTime before = rt->now();
    co_await rt->sleep(d);
    slept->push_back(rt->now() - before);
  }
}

TEST_P(RuntimeConformance, SleepWaitsAtLeastItsDuration) {
  std::vector<Duration> slept;
  ASSERT_TRUE(run(sleep_case(&rt(), &slept)));
  ASSERT_EQ(slept.size(), 3u);
  EXPECT_GE(slept[0], 0ms);
  EXPECT_GE(slept[1], 5ms);
  EXPECT_GE(slept[2], 25ms);
}

Task<void> wall_clock_case(Runtime* rt, WallMs* wall, MonoTime* mono_a, MonoTime* mono_b) {
  *wall = rt->wall_ms();
  *mono_a = rt->now();
  co_await rt->sleep(1ms);
  *mono_b = rt->now();
}

TEST_P(RuntimeConformance, ClocksAreSane) {
  WallMs wall = 0;
  MonoTime a{}, b{};
  ASSERT_TRUE(run(wall_clock_case(&rt(), &wall, &a, &b)));
  EXPECT_GT(wall, 1'500'000'000'000) << "wall_ms is milliseconds since the Unix epoch";
  EXPECT_GT(b, a) << "monotonic time advances across a sleep";
}

Task<void> post_case(Runtime* rt, std::vector<int>* order, bool* inline_run, bool* all_ran) {
  Executor& ex = rt->executor();
  for (int i = 0; i < 5; ++i) ex.post([order, i] { order->push_back(i); });
  *inline_run = !order->empty();
  ex.post([all_ran] { *all_ran = true; });
  co_await wait_for(rt, all_ran, 5s);
}

TEST_P(RuntimeConformance, PostRunsLaterInFifoOrder) {
  std::vector<int> order;
  bool inline_run = true, all_ran = false;
  ASSERT_TRUE(run(post_case(&rt(), &order, &inline_run, &all_ran)));
  EXPECT_FALSE(inline_run) << "post() must never run its callback inline";
  EXPECT_TRUE(all_ran);
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 3, 4}));
}

Task<void> child(int* runs, bool* done) {
  ++*runs;
  *done = true;
  co_return;
}

Task<void> spawn_case(Runtime* rt, int* runs, bool* ran_inline, bool* done) {
  rt->spawn(child(runs, done), "child");
  *ran_inline = *runs != 0;
  co_await wait_for(rt, done, 5s);
}

TEST_P(RuntimeConformance, SpawnStartsTasksThroughTheExecutor) {
  int runs = 0;
  bool ran_inline = true, done = false;
  ASSERT_TRUE(run(spawn_case(&rt(), &runs, &ran_inline, &done)));
  EXPECT_FALSE(ran_inline) << "spawn() must not run task code inline";
  EXPECT_EQ(runs, 1);
}

Task<void> offload_case(Runtime* rt, int* ran, std::string* what, int* after) {
  co_await rt->offload([ran] { ++*ran; });
  co_await rt->offload([ran] { ++*ran; });
  try {
    co_await rt->offload([] { throw std::runtime_error("offloaded failure"); });
  } catch (const std::runtime_error& e) {
    *what = e.what();
  }
  ++*after;  // the awaiter resumed (on the loop) after the exception
}

TEST_P(RuntimeConformance, OffloadRunsAndResumesWithExceptions) {
  int ran = 0, after = 0;
  std::string what;
  ASSERT_TRUE(run(offload_case(&rt(), &ran, &what, &after)));
  EXPECT_EQ(ran, 2);
  EXPECT_EQ(what, "offloaded failure");
  EXPECT_EQ(after, 1);
}

Task<void> log_case(Runtime* rt, std::string* name) {
  rt->log().debug("conformance: logging from node {}", rt->node_name());
  *name = rt->node_name();
  co_return;
}

TEST_P(RuntimeConformance, NodeHasANameAndALogger) {
  std::string name;
  ASSERT_TRUE(run(log_case(&rt(), &name)));
  EXPECT_FALSE(name.empty());
}

}  // namespace

// The runtimes under test. Each entry runs every TEST_P above and in the other conformance files.
std::vector<HarnessFactory> runtimes_under_test() {
  return {
      {"asio", [] { return make_asio_harness(); }},
      {"asio_tls", [] { return make_asio_tls_harness(); }},
      {"sim_seed_1", [] { return make_sim_harness(1); }},
      {"sim_seed_2", [] { return make_sim_harness(2); }},
  };
}

INSTANTIATE_TEST_SUITE_P(Runtimes, RuntimeConformance, ::testing::ValuesIn(runtimes_under_test()),
                         [](const ::testing::TestParamInfo<HarnessFactory>& info) { return info.param.name; });

}  // namespace ferry::testing
