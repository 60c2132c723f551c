// The conformance harness for the production runtime: one AsioRuntime per test over a fresh
// temporary data root; peer() is the same node (connections go over real loopback TCP).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "runtime/asio/asio_runtime.h"
#include "tests/runtime/conformance.h"
#include "tests/support/temp_dir.h"

namespace ferry::testing {
namespace {

struct RunState {
  bool finished = false;
  bool timed_out = false;
  std::string failure;
};

Task<void> finish_then_stop(Task<void> task, std::shared_ptr<RunState> state, AsioRuntime* rt) {
  try {
    co_await std::move(task);
  } catch (const std::exception& e) {
    state->failure = e.what();
  } catch (...) {
    state->failure = "unknown exception";
  }
  state->finished = true;
  rt->stop();
}

class AsioHarness final : public RuntimeHarness {
 public:
  AsioHarness() {
    AsioRuntime::Options options;
    options.node_name = "asio-test";
    options.data_root = dir_.path();
    options.offload_threads = 2;
    rt_ = std::make_unique<AsioRuntime>(options);
  }
  ~AsioHarness() override { rt_.reset(); }  // before dir_ is removed

  std::string name() const override { return "asio"; }
  Runtime& rt() override { return *rt_; }
  Runtime& peer() override { return *rt_; }
  Endpoint listen_address(Runtime&) override { return Endpoint{"127.0.0.1", 0}; }

  bool run(Task<void> task, Duration limit) override {
    auto state = std::make_shared<RunState>();
    rt_->spawn(finish_then_stop(std::move(task), state, rt_.get()), "harness");
    AsioRuntime* rt = rt_.get();
    const TimerId deadline = rt_->timers().schedule(limit, [state, rt] {
      state->timed_out = true;
      rt->stop();
    });
    rt_->run();
    (void)rt_->timers().cancel(deadline);
    if (!state->failure.empty()) ADD_FAILURE() << "the task threw: " << state->failure;
    if (!state->finished) {
      ADD_FAILURE() << "the task did not finish within " << to_ms(limit) << " ms";
    }
    return state->finished && state->failure.empty();
  }

 private:
  TempDir dir_{"asio"};  // declared before rt_, so it goes after it
  std::unique_ptr<AsioRuntime> rt_;
};

}  // namespace

std::unique_ptr<RuntimeHarness> make_asio_harness() { return std::make_unique<AsioHarness>(); }

}  // namespace ferry::testing
