// Each property of property_test.cc can fail: run against a deliberately broken component, it
// finds a counterexample, shrinks it, and the scenario file it writes replays the failure in
// mqsim. The broken components are scenario settings, so the replay carries them too:
//   * a producer whose selector ignores the key (selector = "rotate") — per-key order;
//   * a lite pull consumer that silently seeks back (rewind_every) — per-queue FIFO;
//   * brokers whose queue locks expire at once (rebalance_lock_max_live_time = 1 ms) under
//     consumers that disagree on the queue allocation (allocate) — orderly exclusivity;
//   * a broadcast consumer whose local offset store does not survive a restart (restart with
//     wipe) — broadcast delivery;
//   * a broker disk that acknowledges syncs it did not do, then a power loss (lying_disk) —
//     at-least-once and the store prefix;
//   * transaction producers whose check listener answers COMMIT whatever their database says
//     (check_answers = "always_commit") — a rolled-back transaction never delivered;
//   * FIFO POP consumers that do not ask the broker for order (ask_order = false) — one batch of
//     a queue at a time;
//   * timer producers that ask for half the delay they record (timer_asked_percent = 50) — no
//     timer early.
// Each test prints the shrunk counterexample, how many shrink steps it took and the run count.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstdio>
#include <functional>
#include <string>

#include "sim/property/property.h"
#include "sim/scenario/fault_registry.h"
#include "tests/sim/property/recorded.h"

namespace ferry::sim::property {
namespace {

struct Found {
  bool failed = false;
  std::string description;  // the failure message (the violation and the replay line)
  std::string counterexample;
  int cases = 0;             // generated runs until the first failure
  int shrinks_tried = 0;     // runs while shrinking
  int shrinks_accepted = 0;  // shrink steps that still failed
};

// Counts what RapidCheck runs; prints nothing (the global listener would print a reproduce line
// at exit for every failure, and these failures are the expected result).
class Counter final : public rc::detail::TestListener {
 public:
  explicit Counter(Found& f) : f_(f) {}
  void onTestCaseFinished(const rc::detail::CaseDescription&) override { ++f_.cases; }
  void onShrinkTried(const rc::detail::CaseDescription&, bool accepted) override {
    ++f_.shrinks_tried;
    if (accepted) ++f_.shrinks_accepted;
  }
  void onTestFinished(const rc::detail::TestMetadata&, const rc::detail::TestResult&) override {}

 private:
  Found& f_;
};

// Checks `body` with a fixed seed and up to `cases` cases; what RapidCheck found.
Found find_counterexample(const std::function<void()>& body, int cases) {
  Found found;
  rc::detail::TestParams params;
  params.seed = 20261201;
  params.maxSuccess = cases;
  params.maxSize = 100;
  rc::detail::TestMetadata meta;
  meta.id = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  Counter counter(found);
  const rc::detail::TestResult result =
      rc::detail::checkProperty(rc::detail::toProperty([&] { body(); }), meta, params, counter);
  rc::detail::FailureResult failure;
  if (result.match(failure)) {
    found.failed = true;
    found.description = failure.description;
    for (const auto& [type, value] : failure.counterExample) found.counterexample += value + "\n";
  }
  return found;
}

// The mqsim command of a failure message ("replay: CMD"), run; its exit status and output.
struct Replayed {
  int status = -1;
  std::string output;
};
Replayed replay(const std::string& description) {
  const std::size_t at = description.find("replay: ");
  if (at == std::string::npos) return {};
  const std::size_t end = description.find('\n', at);
  const std::string command = description.substr(at + 8, end == std::string::npos ? std::string::npos : end - at - 8);
  Replayed r;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return r;
  char buf[4096];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) r.output.append(buf, n);
  const int raw = ::pclose(pipe);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return r;
}

// A broken property run must fail, say which check failed, and replay in mqsim to the same failure.
void expect_counterexample(const Found& f, const std::string& check_line) {
  ASSERT_TRUE(f.failed) << "no counterexample in " << f.cases << " runs";
  std::printf("counterexample after %d runs, shrunk in %d steps (%d runs tried):\n%s%s\n", f.cases, f.shrinks_accepted,
              f.shrinks_tried, f.counterexample.c_str(), f.description.c_str());
  EXPECT_NE(f.description.find(check_line), std::string::npos) << f.description;
  const Replayed r = replay(f.description);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find(check_line), std::string::npos) << "the replay does not fail the same way:\n" << r.output;
}

TEST(PropertiesCanFail, PerKeyOrderWithASelectorThatIgnoresTheKey) {
  const Found f = find_counterexample(
      [] {
        Shape shape;
        shape.topics = TopicOrder::ordered;
        shape.consumers = {Flavor::orderly};
        GeneratedRun run = *gen_run(shape);
        for (scenario::ProducerScenario& p : run.scenario.producers) p.spec.selector = cluster::ProducerSpec::Selector::rotate;
        require_check(recorded(run), "key-order");
      },
      200);
  expect_counterexample(f, "key-order: FAIL");
}

TEST(PropertiesCanFail, PerQueueFifoWithAConsumerThatRewindsSilently) {
  const Found f = find_counterexample(
      [] {
        Shape shape;
        shape.consumers = {Flavor::lite_pull};
        GeneratedRun run = *gen_run(shape);
        for (scenario::ConsumerScenario& c : run.scenario.consumers) c.spec.rewind_every = std::chrono::seconds(2);
        require_check(recorded(run), "queue-offsets");
      },
      200);
  expect_counterexample(f, "queue-offsets: FAIL");
}

TEST(PropertiesCanFail, OrderlyExclusiveWithLocksThatExpireAtOnce) {
  const Found f = find_counterexample(
      [] {
        Shape shape;
        shape.consumers = {Flavor::orderly};
        GeneratedRun run = *gen_run(shape);
        for (cluster::BrokerGroupSpec& g : run.scenario.cluster.brokers) g.config.rebalance_lock_max_live_time = std::chrono::milliseconds(1);
        // Members that disagree on who takes which queue: only the locks keep them apart.
        for (std::size_t i = 0; i < run.scenario.consumers.size(); i += 2) {
          run.scenario.consumers[i].spec.config.allocate_strategy = client::AllocateStrategy::by_circle;
        }
        require_check(recorded(run), "orderly-exclusive");
      },
      200);
  expect_counterexample(f, "orderly-exclusive: FAIL");
}

TEST(PropertiesCanFail, BroadcastWithAnOffsetStoreLostOnRestart) {
  const Found f = find_counterexample(
      [] {
        Shape shape;
        shape.consumers = {Flavor::broadcast};
        GeneratedRun run = *gen_run(shape);
        // Every broadcast consumer that stays restarts once with an empty disk (its offsets.json gone).
        const auto restart_at = std::chrono::milliseconds(*rc::gen::inRange(2'000, 20'000));
        for (const scenario::ConsumerScenario& c : run.scenario.consumers) {
          if (c.stop_at) continue;
          scenario::FaultEntry f = scenario::make_fault(
              "restart", std::max<Duration>(restart_at, c.start_at + std::chrono::seconds(1)), {c.node});
          f.params["kind"] = std::string("kill");
          f.params["wipe"] = true;
          f.duration = std::chrono::seconds(3);
          run.scenario.faults.push_back(f);
        }
        const Outcome out = recorded(run);
        require_check(out, "lost-acked");
      },
      200);
  expect_counterexample(f, "lost-acked: FAIL");
}

TEST(PropertiesCanFail, TransactionsWithACheckListenerThatAlwaysCommits) {
  const Found f = find_counterexample(
      [] {
        Shape shape;
        shape.topics = TopicOrder::unordered;
        shape.transactions = true;
        shape.consumers = {Flavor::concurrent};
        GeneratedRun run = *gen_run(shape);
        for (scenario::ProducerScenario& p : run.scenario.producers) {
          if (p.spec.transactions) p.spec.transactions->check_answers = cluster::ProducerSpec::Transactions::CheckAnswers::always_commit;
        }
        require_check(recorded(run), "transactions");
      },
      200);
  expect_counterexample(f, "transactions: FAIL");
}

TEST(PropertiesCanFail, FifoPopWithAConsumerThatDoesNotAskForOrder) {
  const Found f = find_counterexample(
      [] {
        Shape shape;
        shape.topics = TopicOrder::ordered;
        shape.consumers = {Flavor::pop_fifo};
        GeneratedRun run = *gen_run(shape);
        for (scenario::ConsumerScenario& c : run.scenario.consumers) c.spec.pop->ask_order = false;
        require_check(recorded(run), "pop-fifo");
      },
      200);
  expect_counterexample(f, "pop-fifo: FAIL");
}

TEST(PropertiesCanFail, TimersWithAProducerThatAsksForHalfItsDelay) {
  const Found f = find_counterexample(
      [] {
        Shape shape;
        shape.timers = true;
        shape.consumers = {Flavor::concurrent};
        GeneratedRun run = *gen_run(shape);
        for (scenario::ProducerScenario& p : run.scenario.producers) {
          if (p.spec.timers) p.spec.timers->asked_percent = 50;
        }
        require_check(recorded(run), "timer_delivery");
      },
      200);
  expect_counterexample(f, "timer_delivery: FAIL");
}

// A disk that acknowledges syncs it did not do (a volatile write cache that lies), from 5 s on,
// then a power loss of that broker: what SYNC_FLUSH acknowledged is gone.
void lying_disk_then_power_loss(GeneratedRun& run) {
  for (cluster::BrokerGroupSpec& g : run.scenario.cluster.brokers) g.flush = store::FlushMode::sync_flush;
  const std::string target = run.scenario.cluster.brokers.front().name;
  scenario::FaultEntry lie = scenario::make_fault("lying_disk", std::chrono::seconds(5), {target});
  scenario::FaultEntry power =
      scenario::make_fault("power_off", std::chrono::milliseconds(*rc::gen::inRange(6'000, 20'000)), {target});
  power.duration = std::chrono::seconds(3);
  run.scenario.faults.push_back(lie);
  run.scenario.faults.push_back(power);
}

TEST(PropertiesCanFail, AtLeastOnceWithADiskThatLiesAboutSyncs) {
  const Found f = find_counterexample(
      [] {
        Shape shape;
        shape.consumers = {Flavor::concurrent, Flavor::orderly, Flavor::lite_pull};
        GeneratedRun run = *gen_run(shape);
        lying_disk_then_power_loss(run);
        const Outcome out = recorded(run);
        require_check(out, "lost-acked");
      },
      200);
  expect_counterexample(f, "lost-acked: FAIL");
}

TEST(PropertiesCanFail, StorePrefixWithADiskThatLiesAboutSyncs) {
  const Found f = find_counterexample(
      [] {
        Shape shape;
        GeneratedRun run = *gen_run(shape);
        lying_disk_then_power_loss(run);
        require_check(recorded(run), "store-prefix");
      },
      200);
  expect_counterexample(f, "store-prefix: FAIL");
}

}  // namespace
}  // namespace ferry::sim::property
