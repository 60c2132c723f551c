// OffloadPool: the threads that run one production runtime's Runtime::offload jobs (user
// listeners, blocking callbacks), and the way their completions go back to the loop.
//
// Most offloaded jobs are short (a listener that counts or stores a message) and they come in
// bursts: a pull of 32 messages is 32 listener calls posted in one loop turn. A pool that wakes
// one sleeping thread per job pays a futex wake and two context switches per job, plus a loop
// wake per completion; on two cores that, not the listener, limits a push consumer. So:
//  * Jobs run in FIFO order. A thread that finishes a job takes the next queued one itself.
//  * post() wakes a sleeping thread only when no thread is running a job or already woken: a
//    burst of short jobs runs on one thread, one wake per burst.
//  * No job waits long behind a slow one: while jobs are queued (or completions held back), a
//    monitor thread looks every `patience`; when the oldest queued job has waited that long, the
//    pool is behind, and the monitor wakes one sleeping thread per queued job (as many as
//    sleep). A job that finds every thread asleep costs the monitor nothing: it goes idle
//    whenever the queue is empty, and only a post that finds a thread busy wakes it. Slow jobs (a listener
//    blocked on a database) so spread over every thread within about one patience, and a job
//    waits at most about two patiences for a thread while one sleeps.
//  * A job returns its completion: a callback for the loop. Completions of consecutive jobs go
//    back in one Executor::post: they are handed over when the thread that finished a job finds
//    the queue empty, when kMaxCompletionBatch have gathered, and by the monitor when the oldest
//    has waited a patience. So a completion reaches the loop at most about one patience (or one
//    batch) after its job ended.
//
// Lifetime: the threads start in the constructor. join() runs every job already queued, hands
// their completions to the loop (which may drop them: the loop may be gone by then), and ends
// the threads; the destructor joins. post() after join() is a bug. post() may be called from
// any thread; the loop is the usual caller.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "runtime/executor.h"

namespace ferry::asio_rt {

class OffloadPool {
 public:
  // What a job runs off the loop; it returns what then runs on the loop (may be empty).
  using Job = std::function<std::function<void()>()>;

  static constexpr std::chrono::microseconds kDefaultPatience{1000};
  static constexpr std::size_t kMaxCompletionBatch = 64;

  // `threads` job threads (at least 1) and the monitor; completions go to `loop`.
  OffloadPool(Executor& loop, std::size_t threads, std::chrono::microseconds patience = kDefaultPatience);
  ~OffloadPool();
  OffloadPool(const OffloadPool&) = delete;
  OffloadPool& operator=(const OffloadPool&) = delete;

  void post(Job job);
  void join();

  // Counters for tests and benchmarks (read under the lock; monotonic but `asleep`).
  struct Stats {
    std::size_t asleep = 0;        // job threads waiting for work now
    std::size_t jobs = 0;          // jobs run
    std::size_t wakes = 0;         // sleeping threads woken by post()
    std::size_t monitor_wakes = 0; // sleeping threads woken because the queue's head waited a patience
    std::size_t handoffs = 0;      // Executor::post calls carrying completions
  };
  Stats stats() const;

 private:
  using Clock = std::chrono::steady_clock;
  struct Queued {
    Job job;
    Clock::time_point since;
  };

  void work();
  void monitor();
  // Takes the gathered completions (lock held); the caller posts them with hand_over() unlocked.
  std::vector<std::function<void()>> take_completions();
  void hand_over(std::vector<std::function<void()>> batch);

  Executor& loop_;
  const std::size_t thread_count_;
  const std::chrono::microseconds patience_;

  mutable std::mutex mu_;
  std::condition_variable work_cv_;     // job threads sleep here; one ticket wakes one
  std::condition_variable monitor_cv_;  // the monitor sleeps here while nothing waits
  std::deque<Queued> queue_;            // guarded by mu_
  std::vector<std::function<void()>> completions_;  // guarded by mu_: not handed over yet
  Clock::time_point oldest_completion_;             // guarded by mu_: when the first of them ended
  std::size_t sleeping_ = 0;  // guarded by mu_: job threads waiting on work_cv_
  std::size_t tickets_ = 0;   // guarded by mu_: wakes granted and not yet taken
  std::size_t running_ = 0;   // guarded by mu_: job threads inside a job
  bool monitor_idle_ = false; // guarded by mu_: the monitor waits without a deadline
  bool stopping_ = false;     // guarded by mu_
  Stats stats_;               // guarded by mu_

  std::vector<std::thread> threads_;
  std::thread monitor_thread_;
};

}  // namespace ferry::asio_rt
