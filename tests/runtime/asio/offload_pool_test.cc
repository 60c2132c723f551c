// OffloadPool (runtime/asio/offload_pool.h): every job runs and hands its completion back once;
// a burst of short jobs takes one wake; blocked jobs spread over every thread; a completion is
// not held back by a job that blocks after it; join() runs what is queued.
//
// Waits here are bounded (a missing wake fails the test after kGiveUp instead of hanging it);
// nothing asserts how fast anything is.
#include "runtime/asio/offload_pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

namespace ferry::asio_rt {
namespace {

using namespace std::chrono_literals;

constexpr auto kGiveUp = 30s;
constexpr std::chrono::microseconds kNever{std::chrono::hours(1)};  // a patience that never runs out

// The loop's side: completions are queued here and run by the test thread.
class TestLoop final : public Executor {
 public:
  void post(std::function<void()> fn) override {
    {
      std::lock_guard lock(mu_);
      posted_.push_back(std::move(fn));
    }
    cv_.notify_all();
  }
  bool on_loop_thread() const override { return false; }

  // Runs posted callbacks until `done()` holds (checked after each) or kGiveUp passes.
  template <typename Pred>
  bool run_until(Pred done) {
    const auto deadline = std::chrono::steady_clock::now() + kGiveUp;
    std::unique_lock lock(mu_);
    while (!done()) {
      if (posted_.empty()) {
        if (cv_.wait_until(lock, deadline) == std::cv_status::timeout && posted_.empty()) return false;
        continue;
      }
      std::vector<std::function<void()>> batch;
      batch.swap(posted_);
      lock.unlock();
      for (auto& f : batch) f();
      lock.lock();
    }
    return true;
  }
  std::size_t queued() {
    std::lock_guard lock(mu_);
    return posted_.size();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<std::function<void()>> posted_;
};

// A one-way gate a job can wait at (bounded by kGiveUp).
class Gate {
 public:
  void open() {
    {
      std::lock_guard lock(mu_);
      open_ = true;
    }
    cv_.notify_all();
  }
  bool wait() {
    std::unique_lock lock(mu_);
    return cv_.wait_for(lock, kGiveUp, [this] { return open_; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
};

// Waits until every thread of `pool` sleeps (they start in the constructor), so that a test's
// first post is the one that finds them all asleep.
bool all_asleep(const OffloadPool& pool, std::size_t threads) {
  const auto deadline = std::chrono::steady_clock::now() + kGiveUp;
  while (pool.stats().asleep != threads) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(100us);
  }
  return true;
}

TEST(OffloadPool, EveryJobRunsAndItsCompletionComesBackOnce) {
  TestLoop loop;
  OffloadPool pool(loop, 4, std::chrono::microseconds(200));
  constexpr int kJobs = 2000;
  std::atomic<int> ran{0};
  std::vector<int> completed(kJobs, 0);  // test thread only
  int completions = 0;
  for (int i = 0; i < kJobs; ++i) {
    pool.post([&ran, &completed, &completions, i]() -> std::function<void()> {
      ran.fetch_add(1);
      return [&completed, &completions, i] {
        ++completed[static_cast<std::size_t>(i)];
        ++completions;
      };
    });
  }
  ASSERT_TRUE(loop.run_until([&] { return completions == kJobs; })) << completions << " of " << kJobs << " completions";
  EXPECT_EQ(ran.load(), kJobs);
  for (int i = 0; i < kJobs; ++i) EXPECT_EQ(completed[static_cast<std::size_t>(i)], 1) << "job " << i;
  const OffloadPool::Stats s = pool.stats();
  EXPECT_EQ(s.jobs, static_cast<std::size_t>(kJobs));
  EXPECT_LE(s.handoffs, s.jobs);
}

TEST(OffloadPool, ABurstBehindARunningJobTakesNoFurtherWake) {
  TestLoop loop;
  OffloadPool pool(loop, 4, kNever);
  ASSERT_TRUE(all_asleep(pool, 4));
  Gate burst_posted;
  std::mutex mu;
  std::set<std::thread::id> threads;
  int completions = 0;
  auto record = [&] {
    std::lock_guard lock(mu);
    threads.insert(std::this_thread::get_id());
  };
  bool first_waited = false;
  pool.post([&]() -> std::function<void()> {
    record();
    first_waited = burst_posted.wait();
    return [&completions] { ++completions; };
  });
  constexpr int kBurst = 200;
  for (int i = 0; i < kBurst; ++i) {
    pool.post([&]() -> std::function<void()> {
      record();
      return [&completions] { ++completions; };
    });
  }
  burst_posted.open();
  ASSERT_TRUE(loop.run_until([&] { return completions == kBurst + 1; })) << completions << " completions";
  EXPECT_TRUE(first_waited);
  const OffloadPool::Stats s = pool.stats();
  EXPECT_EQ(s.wakes, 1u) << "only the first post found every thread asleep";
  EXPECT_EQ(s.monitor_wakes, 0u);
  EXPECT_EQ(threads.size(), 1u) << "the thread that ran the first job ran the burst";
  // Completions of jobs that ended with more queued went back together, kMaxCompletionBatch at most.
  EXPECT_EQ(s.handoffs, (kBurst + 1 + OffloadPool::kMaxCompletionBatch - 1) / OffloadPool::kMaxCompletionBatch);
}

TEST(OffloadPool, BlockedJobsSpreadOverEveryThread) {
  TestLoop loop;
  constexpr int kThreads = 4;
  OffloadPool pool(loop, kThreads, std::chrono::microseconds(1000));
  ASSERT_TRUE(all_asleep(pool, kThreads));
  // Each job waits until all kThreads are inside a job at once: only a pool that wakes a thread
  // for every job stuck behind a blocked one gets there.
  std::mutex mu;
  std::condition_variable cv;
  int inside = 0;
  std::set<std::thread::id> threads;
  std::atomic<int> met{0};
  int completions = 0;
  for (int i = 0; i < kThreads; ++i) {
    pool.post([&]() -> std::function<void()> {
      std::unique_lock lock(mu);
      ++inside;
      threads.insert(std::this_thread::get_id());
      cv.notify_all();
      if (cv.wait_for(lock, kGiveUp, [&] { return inside == kThreads; })) met.fetch_add(1);
      return [&completions] { ++completions; };
    });
  }
  ASSERT_TRUE(loop.run_until([&] { return completions == kThreads; }));
  EXPECT_EQ(met.load(), kThreads) << "jobs that never had all threads at once";
  EXPECT_EQ(threads.size(), static_cast<std::size_t>(kThreads));
  const OffloadPool::Stats s = pool.stats();
  EXPECT_EQ(s.wakes, 1u) << "the first post woke a thread; the others found it awake";
  EXPECT_EQ(s.monitor_wakes, static_cast<std::size_t>(kThreads - 1)) << "one per job stuck behind the blocked ones";
}

TEST(OffloadPool, ACompletionIsNotHeldBackByTheBlockedJobAfterIt) {
  TestLoop loop;
  OffloadPool pool(loop, 1, std::chrono::microseconds(1000));
  Gate first_completed;
  Gate second_posted;
  bool first_waited = false;
  bool first_done = false;
  bool second_saw_first = false;
  bool second_finished = false;
  pool.post([&]() -> std::function<void()> {
    first_waited = second_posted.wait();  // so the second job is queued when this one ends
    return [&] {
      first_done = true;
      first_completed.open();
    };
  });
  pool.post([&]() -> std::function<void()> {
    second_saw_first = first_completed.wait();  // blocks until the loop ran the first completion
    return [&] { second_finished = true; };
  });
  second_posted.open();
  ASSERT_TRUE(loop.run_until([&] { return second_finished; }));
  EXPECT_TRUE(first_waited);
  EXPECT_TRUE(first_done);
  EXPECT_TRUE(second_saw_first) << "the first job's completion waited for the second job to end";
}

TEST(OffloadPool, JoinRunsWhatIsQueuedAndHandsTheCompletionsOver) {
  TestLoop loop;
  std::atomic<int> ran{0};
  constexpr int kJobs = 50;
  {
    OffloadPool pool(loop, 2, std::chrono::microseconds(1000));
    for (int i = 0; i < kJobs; ++i) {
      pool.post([&ran]() -> std::function<void()> {
        ran.fetch_add(1);
        std::this_thread::sleep_for(100us);
        return [] {};
      });
    }
    pool.join();
    EXPECT_EQ(ran.load(), kJobs);
    EXPECT_EQ(pool.stats().jobs, static_cast<std::size_t>(kJobs));
  }
  EXPECT_GE(loop.queued(), 1u) << "the completions went to the loop";
}

}  // namespace
}  // namespace ferry::asio_rt
