#include "runtime/asio/asio_executor.h"

#include <boost/asio/post.hpp>

#include <utility>

namespace ferry::asio_rt {

AsioExecutor::~AsioExecutor() {
  for (;;) {
    std::vector<std::function<void()>> dropped;
    {
      std::lock_guard lock(mu_);
      dropped.swap(queued_);
    }
    if (dropped.empty()) return;
  }  // `dropped` dies outside the lock: a dying capture may post
}

void AsioExecutor::post(std::function<void()> fn) {
  bool schedule = false;
  {
    std::lock_guard lock(mu_);
    queued_.push_back(std::move(fn));
    schedule = !std::exchange(drain_posted_, true);
  }
  if (schedule) boost::asio::post(io_, [this] { drain(); });
}

void AsioExecutor::drain() {
  {
    std::lock_guard lock(mu_);
    running_.swap(queued_);  // queued_ is now the empty vector of the previous batch
    drain_posted_ = false;
  }
  std::size_t next = 0;
  // Puts the callbacks not run yet back at the front of the FIFO, ahead of what was posted since.
  auto requeue_rest = [&] {
    bool schedule = false;
    {
      std::lock_guard lock(mu_);
      queued_.insert(queued_.begin(), std::make_move_iterator(running_.begin() + static_cast<std::ptrdiff_t>(next)),
                     std::make_move_iterator(running_.end()));
      schedule = !std::exchange(drain_posted_, true);
    }
    running_.clear();
    if (schedule) boost::asio::post(io_, [this] { drain(); });
  };
  try {
    while (next < running_.size()) {
      // A stopped io_context (stop(), or wake() of a driver whose condition may now hold) runs
      // no further handler; stop between callbacks too, so the driver sees it as it did before.
      if (io_.stopped()) {
        requeue_rest();
        return;
      }
      std::function<void()> fn = std::move(running_[next]);
      ++next;
      fn();
    }
  } catch (...) {
    requeue_rest();
    throw;
  }
  running_.clear();
}

}  // namespace ferry::asio_rt
