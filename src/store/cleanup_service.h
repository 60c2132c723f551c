// CleanupService: deletes old CommitLog files and what indexes them (RocketMQ's
// CleanCommitLogService and CleanConsumeQueueService), and watches the disk.
//
// Every clean_resource_interval (10 s) run_once():
//  1. reads the disk use (FileSystem::space()) and sets the pressure (disk_pressure()):
//       >= 90 % full: puts are refused (MessageStore checks disk_full()) and files go at once;
//       >= 85 % clean_forcibly: files go at once, whatever their age;
//       >= 75 % over_max_used: expired files go now instead of waiting for the delete hour;
//  2. when it is the delete hour (deleteWhen, "04", UTC), or the disk is at 75 % or more,
//     removes CommitLog files oldest first (never the last one, at most delete_files_batch_max
//     a pass) while each is older than file_reserved_time (72 h) (or at once, see above).
//     A file's age is the newest store timestamp of its records (CommitLog::
//     newest_store_timestamp; the FileSystem keeps no modification time);
//  3. removes ConsumeQueue files and index files wholly below the CommitLog's new min offset,
//     and moves every queue's min offset to its first unit at or after it (a pull below it then
//     gets offset_too_small: PULL_OFFSET_MOVED).
// Reads of what remains go on throughout: views pin their bytes (runtime/file_system.h).
//
// Threading: the node's loop only. Lifetime: the owner (MessageStore) outlives run_loop(); stop()
// ends the loop at its next wake-up.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "runtime/file_system.h"
#include "runtime/log_limiter.h"
#include "runtime/result.h"
#include "runtime/runtime.h"
#include "runtime/task.h"
#include "store/commit_log.h"
#include "store/consume_queue.h"
#include "store/index_service.h"
#include "store/store_config.h"

namespace ferry::store {

enum class DiskPressure : std::uint8_t {
  normal,          // below disk_max_used_space_ratio_pct
  over_max_used,   // >= 75 %: delete expired files without waiting for the delete hour
  clean_forcibly,  // >= 85 %: delete files whatever their age
  full,            // >= 90 %: also refuse puts
};
std::string_view disk_pressure_name(DiskPressure p);

// The pressure for `space` under `config`'s ratios; normal when the capacity is unknown (0).
DiskPressure disk_pressure(const SpaceInfo& space, const StoreConfig& config);
// True when the UTC hour of `now_ms` is one of `delete_when`'s hours ("04", or "04;16").
bool is_delete_hour(WallMs now_ms, std::string_view delete_when);

// What one pass decided and did.
struct CleanupReport {
  DiskPressure pressure = DiskPressure::normal;
  std::int64_t used_pct = 0;
  bool commit_log_pass = false;  // the delete hour or the disk pressure asked for deletion
  bool at_once = false;          // ... whatever the files' ages
  std::size_t commit_log_files = 0;
  std::size_t consume_queue_files = 0;
  std::size_t index_files = 0;
};

class CleanupService {
 public:
  CleanupService(Runtime& rt, CommitLog& log, ConsumeQueueTable& queues, IndexService& index,
                 const StoreConfig& config);
  CleanupService(const CleanupService&) = delete;
  CleanupService& operator=(const CleanupService&) = delete;

  // Reads the disk use and updates pressure() / disk_full(). Errors from space() leave the last
  // state (and are logged).
  DiskPressure refresh_disk();
  DiskPressure pressure() const { return pressure_; }
  bool disk_full() const { return pressure_ == DiskPressure::full; }
  std::int64_t used_pct() const { return used_pct_; }

  // One pass (see the class comment). Errors: io_error from a removal (what was removed before
  // it stays removed; the next pass continues).
  Result<CleanupReport> run_once();
  // Removes ConsumeQueue and index files below the CommitLog's min offset and corrects the
  // queues' min offsets (step 3 alone; also run after a recovery). Errors: io_error.
  Status clean_below_log_min(CleanupReport& report);

  // Calls run_once() every clean_resource_interval until stop(). Spawn once.
  Task<void> run_loop();
  void stop() { stopped_ = true; }

 private:
  Runtime& rt_;
  CommitLog& log_;
  ConsumeQueueTable& queues_;
  IndexService& index_;
  const StoreConfig& config_;
  DiskPressure pressure_ = DiskPressure::normal;
  std::int64_t used_pct_ = 0;
  bool stopped_ = false;
  LogLimiter space_error_log_;  // disk use not read (each pass while it lasts), by Errc
  LogLimiter failure_log_;      // passes that failed, by Errc
};

}  // namespace ferry::store
