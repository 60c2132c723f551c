// AsioExecutor: a node's Executor on a Boost.Asio io_context.
//
// post() queues `fn` on the io_context (FIFO with everything else posted) and is safe to call
// from any thread while the io_context exists: that is how the I/O thread, the offload pool and
// application threads hand work to the loop. Handlers still queued when the io_context is
// destroyed are dropped without running.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include <atomic>
#include <functional>
#include <thread>
#include <utility>

#include "runtime/executor.h"

namespace ferry::asio_rt {

class AsioExecutor final : public Executor {
 public:
  // `loop_thread`: the thread running the loop now (none while nobody drives it).
  AsioExecutor(boost::asio::io_context& io, const std::atomic<std::thread::id>& loop_thread)
      : io_(io), loop_thread_(loop_thread) {}
  void post(std::function<void()> fn) override { boost::asio::post(io_, std::move(fn)); }
  bool on_loop_thread() const override { return loop_thread_.load() == std::this_thread::get_id(); }
  boost::asio::io_context& io() { return io_; }

 private:
  boost::asio::io_context& io_;
  const std::atomic<std::thread::id>& loop_thread_;
};

}  // namespace ferry::asio_rt
