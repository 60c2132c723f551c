// Runtime: everything a node may use to touch the world. Component code (namesrv, broker,
// client, store, remoting, common) receives a `Runtime&` and uses nothing else for time,
// timers, scheduling, network, disk, randomness and logging.
//
// Implementations: AsioRuntime (src/runtime/asio, real daemons) and the simulator's node
// runtime (sim/). A Runtime belongs to one node; all of its methods are called on that node's
// loop thread unless a method says otherwise.
#pragma once

#include <spdlog/logger.h>

#include <functional>
#include <string>

#include "runtime/clock.h"
#include "runtime/executor.h"
#include "runtime/file_system.h"
#include "runtime/network.h"
#include "runtime/random.h"
#include "runtime/task.h"

namespace ferry {

class Runtime {
 public:
  virtual ~Runtime() = default;

  virtual const std::string& node_name() const = 0;
  virtual Clock& clock() = 0;
  virtual Timers& timers() = 0;
  virtual Executor& executor() = 0;
  virtual Network& network() = 0;
  virtual FileSystem& fs() = 0;
  virtual Random& random() = 0;
  virtual spdlog::logger& log() = 0;

  // Runs `fn`, which may block (a user's listener callback), off the loop and resumes the
  // awaiter on the loop when it returns. Production: an offload thread pool. Simulation: inline.
  // An exception thrown by fn propagates to the awaiter.
  virtual Task<void> offload(std::function<void()> fn) = 0;

  // Fault-injection points: always false in production; in simulation true with a seeded
  // probability per call site (decided once per site per run, then drawn per call).
  virtual bool buggify(const char* file, int line) { (void)file; (void)line; return false; }

  // Conveniences.
  MonoTime now() { return clock().now(); }
  WallMs wall_ms() { return clock().wall_ms(); }
  void spawn(Task<void> task, std::string name = "task") { executor().spawn(std::move(task), std::move(name)); }
  Completion<bool>::Awaiter sleep(Duration d) { return timers().sleep(d); }
};

#define FERRY_BUGGIFY(rt) ((rt).buggify(__FILE__, __LINE__))

}  // namespace ferry
