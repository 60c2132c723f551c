// FlushService: makes the CommitLog durable (RocketMQ's FlushRealTimeService and
// GroupCommitService).
//
//  * ASYNC_FLUSH: run_async_loop() wakes every async_flush_interval (500 ms) and syncs when at
//    least async_flush_pages_min (4) pages are unflushed, or anything is unflushed and
//    async_flush_thorough_interval (10 s) passed since the last full flush.
//  * SYNC_FLUSH: wait_durable(end) completes once the log is synced past `end`. Concurrent
//    waiters share syncs (group commit): one sync in flight at a time, and each completed sync
//    releases every waiter it covers. A waiter not released within sync_flush_timeout (5 s)
//    gets flush_disk_timeout (the message stays stored; a later sync may still cover it).
//  * A failed sync is fatal for the data it covered (MappedFileQueue::flush): every waiter not
//    yet covered gets flush_disk_timeout at once, and so does every later wait beyond what was
//    durable; MessageStore refuses new writes (sync_failure()).
//
// Cancellation: destroying a waiting frame cancels its timer and leaves the group commit
// running for the others. stop() ends the loops at their next wake-up. The service must outlive
// every task it runs (it is a component; see runtime/task.h).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "common/metrics.h"
#include "common/offsets.h"
#include "runtime/completion.h"
#include "runtime/runtime.h"
#include "store/commit_log.h"
#include "store/store_config.h"
#include "store/store_results.h"

namespace ferry::store {

class FlushService {
 public:
  FlushService(Runtime& rt, CommitLog& log, const StoreConfig& config);
  FlushService(const FlushService&) = delete;
  FlushService& operator=(const FlushService&) = delete;

  // ok once the CommitLog is durable past `end`; flush_disk_timeout after sync_flush_timeout.
  Task<PutStatus> wait_durable(PhysicalOffset end);
  // SYNC_FLUSH: makes sure a group commit runs until the log is durable past `end`, whether or
  // not anybody waits for it (a put that does not wait still becomes durable, and visible).
  void request(PhysicalOffset end);
  // Called after every successful sync, before the waiters it covers are released: what became
  // durable may be published (MessageStore dispatches it under SYNC_FLUSH).
  void set_on_flushed(std::function<void()> fn) { on_flushed_ = std::move(fn); }
  // The log was cut back to `end` (MessageStore::truncate_to): what was requested or awaited past
  // it can never become durable; such waiters get flush_disk_timeout now.
  void truncated(PhysicalOffset end);

  // The ASYNC_FLUSH loop; spawn it once. Returns after stop().
  Task<void> run_async_loop();
  // Syncs everything written so far. Errors: io_error.
  Task<Status> flush_all();
  void stop() { stopped_ = true; }

  std::uint64_t syncs() const { return syncs_; }
  // Metrics (the broker's registry; either may be null): every CommitLog sync's duration in
  // milliseconds, and under SYNC_FLUSH how many waiting puts each group-commit sync released.
  void set_observers(metrics::Histogram* sync_latency_ms, metrics::Histogram* group_commit_puts) {
    sync_latency_ms_ = sync_latency_ms;
    group_commit_puts_ = group_commit_puts;
  }
  // The first failed CommitLog sync of this life, if any.
  const std::optional<Error>& sync_failure() const { return log_.files().sync_failure(); }

 private:
  struct Waiter {
    PhysicalOffset end;
    Completion<bool> done;
    TimerId timer;
  };
  Task<void> group_commit();
  // The CommitLog synced, counted and observed; then release_covered().
  Task<Status> sync_and_release();
  // Returns how many waiters it released.
  std::size_t release_covered();
  void fail_waiters();  // after a fatal sync error: every waiter not covered gets false

  Runtime& rt_;
  CommitLog& log_;
  const StoreConfig& config_;
  std::vector<Waiter> waiters_;  // bounded by the number of in-flight sync puts
  bool committing_ = false;
  PhysicalOffset requested_;  // request(): durable past this, waiters or not
  std::function<void()> on_flushed_;
  bool stopped_ = false;
  std::uint64_t syncs_ = 0;
  metrics::Histogram* sync_latency_ms_ = nullptr;
  metrics::Histogram* group_commit_puts_ = nullptr;
};

}  // namespace ferry::store
