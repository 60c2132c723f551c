// The conformance harness for the production runtime: one AsioRuntime per test over a fresh
// temporary data root; peer() is the same node (connections go over real loopback TCP). The TLS
// variant serves and dials TLS only (tls.server.mode=enforcing, tls.enable with the server's
// certificate verified), with an EC certificate made by the openssl command for each test.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <memory>
#include <stdexcept>
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
  explicit AsioHarness(bool tls) : tls_(tls) {
    AsioRuntime::Options options;
    options.node_name = tls ? "asio-tls-test" : "asio-test";
    options.data_root = dir_ / "data";
    options.offload_threads = 2;
    if (tls) {
      const std::string script = "cd '" + dir_.path() +
                                 "' && timeout 60 openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes "
                                 "-keyout key.pem -out cert.pem -days 2 -subj /CN=127.0.0.1 "
                                 "-addext subjectAltName=IP:127.0.0.1 > openssl.out 2>&1";
      if (std::system(script.c_str()) != 0) throw std::runtime_error("openssl could not make the test certificate");
      options.tls.server.mode = TlsServerMode::enforcing;
      options.tls.server.cert_path = dir_ / "cert.pem";
      options.tls.server.key_path = dir_ / "key.pem";
      options.tls.client.enable = true;
      options.tls.client.auth_server = true;
      options.tls.client.verify_hostname = true;
      options.tls.client.trust_cert_path = dir_ / "cert.pem";
    }
    rt_ = std::make_unique<AsioRuntime>(options);
  }
  ~AsioHarness() override { rt_.reset(); }  // before dir_ is removed

  std::string name() const override { return tls_ ? "asio_tls" : "asio"; }
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
  bool tls_;
  TempDir dir_{"asio"};  // declared before rt_, so it goes after it
  std::unique_ptr<AsioRuntime> rt_;
};

}  // namespace

std::unique_ptr<RuntimeHarness> make_asio_harness() { return std::make_unique<AsioHarness>(false); }
std::unique_ptr<RuntimeHarness> make_asio_tls_harness() { return std::make_unique<AsioHarness>(true); }

}  // namespace ferry::testing
