#include "store/flush_service.h"

#include <algorithm>

#include "runtime/assert.h"

namespace ferry::store {

FlushService::FlushService(Runtime& rt, CommitLog& log, const StoreConfig& config)
    : rt_(rt), log_(log), config_(config) {
  FERRY_ASSERT(config.async_flush_interval > Duration::zero(), "async flush interval must be positive");
  FERRY_ASSERT(config.page_size_bytes > 0, "page size must be positive, got {}", config.page_size_bytes);
}

Task<PutStatus> FlushService::wait_durable(PhysicalOffset end) {
  FERRY_ASSERT(end <= log_.max_offset(), "waiting for {} beyond the log end {}", end.value(),
               log_.max_offset().value());
  if (log_.flushed_offset() >= end) co_return PutStatus::ok;
  if (sync_failure()) co_return PutStatus::flush_disk_timeout;  // never durable in this life
  Completion<bool> done(rt_.executor());
  const TimerId timer = rt_.timers().schedule(config_.sync_flush_timeout, [done] {
    if (!done.completed() && !done.abandoned()) done.complete(false);
  });
  Timers* timers = &rt_.timers();
  done.on_abandon([timers, timer] { timers->cancel(timer); });
  waiters_.push_back(Waiter{end, done, timer});
  request(end);
  const bool synced = co_await done.wait();
  co_return synced ? PutStatus::ok : PutStatus::flush_disk_timeout;
}

void FlushService::request(PhysicalOffset end) {
  requested_ = std::max(requested_, end);
  if (committing_ || sync_failure() || log_.flushed_offset() >= requested_) return;
  // Set before the task runs (spawn only posts it): a second request meanwhile must not spawn
  // another group commit.
  committing_ = true;
  rt_.spawn(group_commit(), "store-group-commit");
}

std::size_t FlushService::release_covered() {
  const PhysicalOffset flushed = log_.flushed_offset();
  std::size_t released = 0;
  if (on_flushed_) on_flushed_();
  auto covered = [&](const Waiter& w) {
    return w.end <= flushed || w.done.completed() || w.done.abandoned();
  };
  for (Waiter& w : waiters_) {
    if (w.end <= flushed && !w.done.completed() && !w.done.abandoned()) {
      rt_.timers().cancel(w.timer);
      w.done.complete(true);
      ++released;
    }
  }
  waiters_.erase(std::remove_if(waiters_.begin(), waiters_.end(), covered), waiters_.end());
  return released;
}

Task<Status> FlushService::sync_and_release() {
  const MonoTime began = rt_.now();
  Status st = co_await log_.files().flush();
  ++syncs_;
  if (sync_latency_ms_ != nullptr) sync_latency_ms_->observe(to_seconds(rt_.now() - began) * 1000.0);
  const std::size_t released = release_covered();
  if (group_commit_puts_ != nullptr && released > 0) group_commit_puts_->observe(static_cast<double>(released));
  co_return st;
}

void FlushService::truncated(PhysicalOffset end) {
  requested_ = std::min(requested_, end);
  for (Waiter& w : waiters_) {
    if (w.end > end && !w.done.completed() && !w.done.abandoned()) {
      rt_.timers().cancel(w.timer);
      w.done.complete(false);
    }
  }
  std::erase_if(waiters_, [](const Waiter& w) { return w.done.completed() || w.done.abandoned(); });
}

Task<void> FlushService::group_commit() {
  FERRY_ASSERT(committing_, "a group commit spawned without the flag");
  while (!waiters_.empty() || log_.flushed_offset() < requested_) {
    // (A target past the log's end would spin here: truncated() keeps them within it.)
    FERRY_ASSERT_LE(requested_.value(), log_.max_offset().value());
    // buggify: the sync completes late (a busy disk); well inside sync_flush_timeout.
    if (FERRY_BUGGIFY(rt_)) co_await rt_.sleep(std::chrono::milliseconds(rt_.random().between(1, 50)));
    Status st = co_await sync_and_release();
    if (!st.ok()) {
      rt_.log().error("store: CommitLog sync failed, writes refused until restart: {}", st.error().to_string());
      fail_waiters();
      break;
    }
  }
  committing_ = false;
}

void FlushService::fail_waiters() {
  for (Waiter& w : waiters_) {
    if (!w.done.completed() && !w.done.abandoned()) {
      rt_.timers().cancel(w.timer);
      w.done.complete(false);
    }
  }
  waiters_.clear();
}

Task<Status> FlushService::flush_all() {
  Status st = co_await sync_and_release();
  if (!st.ok()) fail_waiters();
  co_return st;
}

Task<void> FlushService::run_async_loop() {
  MonoTime last_thorough = rt_.now();
  while (!stopped_) {
    co_await rt_.sleep(config_.async_flush_interval);
    // buggify: the flush thread runs late (it was descheduled), by up to one more interval.
    if (FERRY_BUGGIFY(rt_)) {
      co_await rt_.sleep(std::chrono::milliseconds(rt_.random().between(1, to_ms(config_.async_flush_interval))));
    }
    if (stopped_) break;
    const std::int64_t dirty = log_.max_offset() - log_.flushed_offset();
    if (dirty <= 0) continue;
    // buggify: this round skips its flush (ASYNC_FLUSH promises nothing about when data syncs).
    if (FERRY_BUGGIFY(rt_)) continue;
    const bool thorough = rt_.now() - last_thorough >= config_.async_flush_thorough_interval;
    const std::int64_t pages = dirty / config_.page_size_bytes;
    if (!thorough && pages < config_.async_flush_pages_min) continue;
    if (thorough) last_thorough = rt_.now();
    Status st = co_await flush_all();
    if (!st.ok()) {
      rt_.log().error("store: CommitLog sync failed, writes refused until restart: {}", st.error().to_string());
      break;  // nothing more can become durable in this life
    }
  }
}

}  // namespace ferry::store
