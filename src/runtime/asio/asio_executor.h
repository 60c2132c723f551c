// AsioExecutor: a node's Executor on a Boost.Asio io_context.
//
// post() queues `fn` in the executor's own FIFO and is safe to call from any thread while the
// executor exists: that is how the I/O thread, the offload pool and application threads hand
// work to the loop. The FIFO drains through one io_context handler at a time (posted when the
// FIFO becomes non-empty), so posting costs a lock and a vector slot instead of an io_context
// operation per callback (an allocation each, once Asio's per-thread cache of two is spent, which
// hundreds of in-flight requests always spend). A drain runs the callbacks that were queued when
// it started, stops early when the io_context is stopped (run() returns after each handler as
// before), and leaves later callbacks to the next drain, so I/O completions interleave with
// posted work. Callbacks still queued when the executor is destroyed are dropped without running.
#pragma once

#include <boost/asio/io_context.hpp>

#include <atomic>
#include <cstddef>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/executor.h"

namespace ferry::asio_rt {

class AsioExecutor final : public Executor {
 public:
  // `loop_thread`: the thread running the loop now (none while nobody drives it).
  AsioExecutor(boost::asio::io_context& io, const std::atomic<std::thread::id>& loop_thread)
      : io_(io), loop_thread_(loop_thread) {}
  // Drops the queued callbacks; one whose captures post again while dying is dropped too.
  ~AsioExecutor() override;
  AsioExecutor(const AsioExecutor&) = delete;
  AsioExecutor& operator=(const AsioExecutor&) = delete;
  void post(std::function<void()> fn) override;
  bool on_loop_thread() const override { return loop_thread_.load() == std::this_thread::get_id(); }
  boost::asio::io_context& io() { return io_; }

 private:
  // The io_context handler: runs the callbacks queued before it started (see above).
  void drain();

  boost::asio::io_context& io_;
  const std::atomic<std::thread::id>& loop_thread_;
  std::mutex mu_;
  std::vector<std::function<void()>> queued_;  // guarded by mu_
  bool drain_posted_ = false;                  // guarded by mu_: a drain handler is on the io_context
  std::vector<std::function<void()>> running_;  // loop thread only: the batch being run
};

}  // namespace ferry::asio_rt
