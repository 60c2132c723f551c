// SlowListenerRuntime: how a simulated push consumer shows a listener that blocks. The simulator
// runs Runtime::offload callbacks inline, in zero virtual time, so a listener cannot block there;
// instead the listener asks for a hold (ListenerHold::hold_next) and returns, and this Runtime's
// offload() keeps the call "running" for that long in virtual time before the consumer sees its
// result. Everything else is forwarded to the node's Runtime.
//
// Lifetime: owned next to the client objects that use it (ConsumerApp::own_runtime) and
// destroyed after them; the node's Runtime outlives it.
#pragma once

#include <memory>
#include <string>

#include "runtime/runtime.h"

namespace ferry::client::testing {

struct ListenerHold {
  // The listener call that sets this keeps its result back for this long (then it is reset).
  Duration next = Duration::zero();
  int held_calls = 0;      // calls that were held
  int finished_calls = 0;  // held calls whose hold has ended
  void hold_next(Duration d) { next = d; }
};

class SlowListenerRuntime final : public Runtime {
 public:
  SlowListenerRuntime(Runtime& base, std::shared_ptr<ListenerHold> hold) : base_(base), hold_(std::move(hold)) {}

  const std::string& node_name() const override { return base_.node_name(); }
  Clock& clock() override { return base_.clock(); }
  Timers& timers() override { return base_.timers(); }
  Executor& executor() override { return base_.executor(); }
  Network& network() override { return base_.network(); }
  FileSystem& fs() override { return base_.fs(); }
  Random& random() override { return base_.random(); }
  spdlog::logger& log() override { return base_.log(); }
  bool buggify(const char* file, int line) override { return base_.buggify(file, line); }

  Task<void> offload(std::function<void()> fn) override {
    fn();
    const Duration d = hold_->next;
    hold_->next = Duration::zero();
    if (d <= Duration::zero()) co_return;
    std::shared_ptr<ListenerHold> hold = hold_;
    ++hold->held_calls;
    co_await base_.sleep(d);
    ++hold->finished_calls;
  }

 private:
  Runtime& base_;
  std::shared_ptr<ListenerHold> hold_;
};

}  // namespace ferry::client::testing
