// ClientHost: one workload app of a `mqsim run --real` (a producer or consumer node of the
// scenario), run on the production runtime (AsioRuntime) on a thread of the runner's own that
// entered the host's network namespace first, so its connections leave from the host's address
// and the host's packet filter applies to them. The app records into the run's History like
// its simulated twin (the History's write lock keeps the threads apart).
//
// Faults: kill() destroys the app on its loop and ends the thread, as a crash ends a process:
// its sockets close, what it kept in memory is gone; start() begins a new life from the factory.
// pause() blocks the loop until resume() (a stalled process: timers and replies wait, the
// connections stay open); the runtime's offload threads are not stopped, so a listener that
// was running finishes, and its completion waits for the loop.
#pragma once

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "runtime/log.h"
#include "runtime/result.h"
#include "runtime/runtime.h"
#include "sim/process.h"

namespace ferry {
class AsioRuntime;
}

namespace ferry::sim::real {

class ClientHost {
 public:
  using Factory = std::function<std::unique_ptr<NodeProcess>(Runtime&)>;

  // `data_root`: the runtime's folder (a consumer's local offsets in broadcasting mode);
  // `ip`: the host's address (what network().host() says).
  ClientHost(std::string name, int netns_fd, std::string data_root, std::string ip, Factory factory, LogSettings log);
  ~ClientHost();  // kill()
  ClientHost(const ClientHost&) = delete;
  ClientHost& operator=(const ClientHost&) = delete;

  const std::string& name() const { return name_; }
  // A new life on a new thread. Error when it runs already.
  Status start();
  void kill();
  void pause();
  void resume();
  bool running() const;
  bool paused() const;
  // Runs `fn` with the app on its loop and waits up to `timeout` for it; false when the host is
  // down or paused or `fn` did not run in time. `fn` may still run after a timeout (with a live
  // app), so it must hold what it touches by value or by shared_ptr, not the caller's locals.
  bool visit(const std::function<void(NodeProcess&)>& fn, Duration timeout);
  // Its wall clock jumps by `delta_ms`, kept across its lives (a property of the machine).
  void skew_wall_clock(std::int64_t delta_ms);

 private:
  void body();

  const std::string name_;
  const int netns_fd_;
  const std::string data_root_;
  const std::string ip_;
  const Factory factory_;
  const LogSettings log_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::thread thread_;
  AsioRuntime* rt_ = nullptr;  // the live runtime, under mu_
  bool starting_ = false;      // a thread is on its way to rt_
  NodeProcess* app_ = nullptr; // the live app; its loop thread only
  bool paused_ = false;
  bool stopping_ = false;
  std::int64_t skew_ms_ = 0;  // every skew so far, applied to each new life's runtime
};

}  // namespace ferry::sim::real
