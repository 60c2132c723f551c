// A hand-driven Runtime for store unit tests: a FIFO executor, a manual clock whose virtual
// time jumps to the next timer when the loop is idle, the in-memory MemFs, no network.
// Crash-recovery tests belong on the simulator (sim/) once it exists.
#pragma once

#include <spdlog/sinks/null_sink.h>

#include <deque>
#include <optional>
#include <stdexcept>

#include "runtime/runtime.h"
#include "runtime/timer_queue.h"
#include "store/mem_fs.h"

namespace ferry::store::testing {

class TestRuntime final : public Runtime {
 public:
  TestRuntime() : random_(42), logger_("store-test", std::make_shared<spdlog::sinks::null_sink_mt>()) {
    timers_.bind(executor_);
  }
  ~TestRuntime() override { executor_.tasks().destroy_all(); }

  const std::string& node_name() const override { return name_; }
  Clock& clock() override { return clock_; }
  Timers& timers() override { return timers_; }
  Executor& executor() override { return executor_; }
  Network& network() override { throw std::logic_error("no network in store tests"); }
  FileSystem& fs() override { return fs_; }
  Random& random() override { return random_; }
  spdlog::logger& log() override { return logger_; }
  Task<void> offload(std::function<void()> fn) override {
    fn();
    co_return;
  }

  MemFs& mem_fs() { return fs_; }
  void set_wall_ms(WallMs ms) { clock_.wall = ms; }
  void advance(Duration d) {
    clock_.mono += d;
    clock_.wall += to_ms(d);
  }

  // Runs posted work and due timers until nothing is left that is due by `deadline` (virtual
  // time jumps to each timer). Bounded: aborts the test run after `max_steps` callbacks.
  void run_until(MonoTime deadline, std::size_t max_steps = 10'000'000) {
    std::size_t steps = 0;
    for (;;) {
      while (!executor_.q.empty()) {
        auto fn = std::move(executor_.q.front());
        executor_.q.pop_front();
        fn();
        if (++steps > max_steps) throw std::runtime_error("test runtime: step budget exhausted");
      }
      auto next = timers_.q.next_deadline();
      if (!next || *next > deadline) return;
      if (*next > clock_.mono) advance(*next - clock_.mono);
      auto due = timers_.q.pop_due(clock_.mono);
      if (due) due->second();
    }
  }
  // Runs until the loop is idle, with timers up to `horizon` from now.
  void run_for(Duration horizon) { run_until(clock_.mono + horizon); }

  // Runs `task` to completion (timers up to one virtual hour) and returns its value.
  template <typename T>
  T run(Task<T> task) {
    std::optional<T> out;
    executor_.spawn(capture(std::move(task), &out), "test");
    run_for(std::chrono::hours(1));
    if (!out) throw std::runtime_error("test runtime: task did not finish");
    return std::move(*out);
  }

 private:
  template <typename T>
  static Task<void> capture(Task<T> task, std::optional<T>* out) {
    out->emplace(co_await std::move(task));
  }

  struct ManualClock final : Clock {
    MonoTime mono{};
    WallMs wall = 1'700'000'000'000;  // 2023-11-14T22:13:20Z
    MonoTime now() const override { return mono; }
    WallMs wall_ms() const override { return wall; }
  };
  struct FifoExecutor final : Executor {
    std::deque<std::function<void()>> q;
    void post(std::function<void()> fn) override { q.push_back(std::move(fn)); }
  };
  struct QueueTimers final : Timers {
    explicit QueueTimers(ManualClock& c) : clock(c) {}
    ManualClock& clock;
    TimerQueue q;
    TimerId schedule(Duration delay, std::function<void()> fn) override {
      return q.add(clock.mono + std::max(delay, Duration::zero()), std::move(fn));
    }
    bool cancel(TimerId id) override { return q.cancel(id); }
  };

  std::string name_ = "store-test";
  ManualClock clock_;
  FifoExecutor executor_;
  QueueTimers timers_{clock_};
  MemFs fs_;
  Random random_;
  spdlog::logger logger_;
};

}  // namespace ferry::store::testing
