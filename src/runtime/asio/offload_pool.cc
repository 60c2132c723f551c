// OffloadPool (offload_pool.h): job threads, the monitor, completions handed to the loop.
#include "runtime/asio/offload_pool.h"

#include <algorithm>
#include <utility>

#include "runtime/assert.h"

namespace ferry::asio_rt {

OffloadPool::OffloadPool(Executor& loop, std::size_t threads, std::chrono::microseconds patience)
    : loop_(loop), thread_count_(std::max<std::size_t>(1, threads)), patience_(patience) {
  FERRY_ASSERT(patience.count() > 0, "offload pool with a patience of {} us", patience.count());
  threads_.reserve(thread_count_);
  for (std::size_t i = 0; i < thread_count_; ++i) threads_.emplace_back([this] { work(); });
  monitor_thread_ = std::thread([this] { monitor(); });
}

OffloadPool::~OffloadPool() { join(); }

void OffloadPool::join() {
  {
    std::lock_guard lock(mu_);
    if (stopping_ && threads_.empty()) return;
    stopping_ = true;
  }
  work_cv_.notify_all();
  monitor_cv_.notify_all();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
  if (monitor_thread_.joinable()) monitor_thread_.join();
  std::vector<std::function<void()>> rest;
  {
    std::lock_guard lock(mu_);
    rest = take_completions();
  }
  hand_over(std::move(rest));
}

void OffloadPool::post(Job job) {
  bool wake = false;
  bool wake_monitor = false;
  {
    std::lock_guard lock(mu_);
    FERRY_ASSERT(!stopping_, "OffloadPool::post after join ({} jobs queued)", queue_.size());
    queue_.push_back(Queued{std::move(job), Clock::now()});
    // Every thread asleep and none woken yet: nobody would look at the queue. A thread that is
    // awake (running a job, handing completions over) takes it when it is done, or the monitor
    // wakes one if that takes a patience.
    if (sleeping_ == thread_count_ && tickets_ == 0) {
      ++tickets_;
      ++stats_.wakes;
      wake = true;
    } else {
      // The job waits for a thread that is busy: the monitor watches it from now on.
      wake_monitor = std::exchange(monitor_idle_, false);
    }
  }
  if (wake) work_cv_.notify_one();
  if (wake_monitor) monitor_cv_.notify_one();
}

OffloadPool::Stats OffloadPool::stats() const {
  std::lock_guard lock(mu_);
  Stats s = stats_;
  s.asleep = sleeping_ - std::min(sleeping_, tickets_);
  return s;
}

void OffloadPool::work() {
  std::unique_lock lock(mu_);
  for (;;) {
    if (queue_.empty()) {
      if (stopping_) return;
      ++sleeping_;
      work_cv_.wait(lock, [this] { return tickets_ > 0 || stopping_; });
      --sleeping_;
      if (tickets_ > 0) --tickets_;
      continue;
    }
    Job job = std::move(queue_.front().job);
    queue_.pop_front();
    ++running_;
    lock.unlock();
    std::function<void()> done = job();
    job = nullptr;  // the job's captures die here, off the loop
    lock.lock();
    --running_;
    ++stats_.jobs;
    if (done) {
      if (completions_.empty()) oldest_completion_ = Clock::now();
      completions_.push_back(std::move(done));
    }
    if (!completions_.empty() && (queue_.empty() || completions_.size() >= kMaxCompletionBatch)) {
      std::vector<std::function<void()>> batch = take_completions();
      lock.unlock();
      hand_over(std::move(batch));
      lock.lock();
    }
  }
}

void OffloadPool::monitor() {
  std::unique_lock lock(mu_);
  while (!stopping_) {
    if (queue_.empty() && completions_.empty()) {
      monitor_idle_ = true;  // the next post that finds every thread busy wakes us
      monitor_cv_.wait(lock, [this] { return !monitor_idle_ || stopping_; });
      monitor_idle_ = false;
      continue;
    }
    monitor_cv_.wait_for(lock, patience_);
    if (stopping_) break;
    const Clock::time_point now = Clock::now();
    if (!queue_.empty() && now - queue_.front().since >= patience_) {
      // Behind: one sleeping thread for each queued job no granted wake covers yet.
      const std::size_t uncovered = queue_.size() - std::min(queue_.size(), tickets_);
      const std::size_t asleep = sleeping_ - std::min(sleeping_, tickets_);
      const std::size_t n = std::min(uncovered, asleep);
      tickets_ += n;
      stats_.monitor_wakes += n;
      for (std::size_t i = 0; i < n; ++i) work_cv_.notify_one();
    }
    if (!completions_.empty() && now - oldest_completion_ >= patience_) {
      std::vector<std::function<void()>> batch = take_completions();
      lock.unlock();
      hand_over(std::move(batch));
      lock.lock();
    }
  }
}

std::vector<std::function<void()>> OffloadPool::take_completions() {
  std::vector<std::function<void()>> batch;
  batch.swap(completions_);
  if (!batch.empty()) ++stats_.handoffs;
  return batch;
}

void OffloadPool::hand_over(std::vector<std::function<void()>> batch) {
  if (batch.empty()) return;
  loop_.post([batch = std::move(batch)]() mutable {
    for (std::function<void()>& f : batch) f();
  });
}

}  // namespace ferry::asio_rt
