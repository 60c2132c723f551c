// The conformance harness for the production runtime: one AsioRuntime per test over a fresh
// temporary data root; peer() is the same node (connections go over real loopback TCP).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>

#include "runtime/asio/asio_runtime.h"
#include "tests/runtime/conformance.h"

namespace ferry::testing {
namespace {

std::string make_temp_dir() {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = std::string(base && *base ? base : "/tmp") + "/ferry-asio-XXXXXX";
  char* made = ::mkdtemp(pattern.data());
  if (made == nullptr) {
    ADD_FAILURE() << "mkdtemp " << pattern << " failed";
    std::abort();
  }
  return pattern;
}

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
  AsioHarness() : dir_(make_temp_dir()) {
    AsioRuntime::Options options;
    options.node_name = "asio-test";
    options.data_root = dir_;
    options.offload_threads = 2;
    rt_ = std::make_unique<AsioRuntime>(options);
  }
  ~AsioHarness() override {
    rt_.reset();
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

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
  std::string dir_;
  std::unique_ptr<AsioRuntime> rt_;
};

}  // namespace

std::unique_ptr<RuntimeHarness> make_asio_harness() { return std::make_unique<AsioHarness>(); }

}  // namespace ferry::testing
