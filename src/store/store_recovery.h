// StoreRecovery: brings a store's files back to one consistent state when it opens, before
// anything is appended or served (RocketMQ's DefaultMessageStore.recover: recoverNormally /
// recoverAbnormally). docs/store.md, "Recovery rules", gives the steps and why each is there.
//
// run():
//  1. Loads the CommitLog segments, every ConsumeQueue (each finds its end; after a crash by
//     scanning all its files) and the index files, and reads the checkpoint (torn or missing:
//     none).
//  2. Scans the CommitLog: after a clean stop (no `abort` file) its last 3 files; after a crash
//     from the file holding min(checkpoint), or from the first file without a checkpoint. A
//     record that is torn or corrupt ends the log, cut there, when it is a torn tail; when it
//     lies below what is known synced (checkpoint physic after a crash, everything after a
//     clean stop) with valid records after it, config.recover_mode decides: abort (an error),
//     truncate, or skip (CommitLog::recover; each cut or skipped range is logged).
//  3. Units pointing into skipped ranges become holes. Every ConsumeQueue drops its units past
//     the log end or not matching their record (torn
//     garbage: a whole record of that topic, queue and queue offset must be there) and moves its
//     min offset past units below the log start.
//  4. Syncs the cut files, so that a second crash cannot bring stale bytes back under new ones.
//  5. Index files: after a crash those reaching past the checkpoint's index offset, and always
//     those reaching the log end, are removed (they may hold torn entries or describe lost
//     records); after a crash the newest one kept has its torn slots rebuilt. When the
//     re-dispatch must start below what the checkpoint vouches for, the checkpoint is lowered
//     to that start first.
// It returns the RecoveryInfo, whose reput_from is where the caller must dispatch the log again
// (ConsumeQueue units and index entries, replayed ones checked equal) up to its end before it
// serves anything; MessageStore::open() does.
//
// The promise, once the caller has re-dispatched:
//  * What was synced survives: every record below the checkpoint's physic offset, and every
//    record after a clean stop, is kept with its ConsumeQueue units and index entries.
//  * Nothing half-written is served: a torn or corrupt record ends the log; no unit points past
//    the log end or at a record not its own; no index file describes a lost record.
//  * A crash during recovery, or before the re-dispatched units and entries are flushed, is
//    recovered again from the same point or an earlier one.
//
// Errors: corrupt (naming the file: a bad segment, queue directory or index file name; or
// mid-log corruption under RecoverMode::abort, naming the file, offset and --recover), io_error,
// no_space. After an error the files may be partly recovered; the store must not be used
// (opening it again recovers anew).
//
// Lifetime: one use, inside MessageStore::open(); the parts passed in outlive run()'s Task.
// Loop thread only.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "common/offsets.h"
#include "runtime/runtime.h"
#include "store/checkpoint.h"
#include "store/commit_log.h"
#include "store/consume_queue.h"
#include "store/index_service.h"
#include "store/store_config.h"

namespace ferry::store {

// Present from open() to shutdown(): its absence at open() means the last stop was clean.
inline constexpr std::string_view kAbortFileName = "abort";

struct RecoveryInfo {
  bool clean_shutdown = false;
  std::optional<Checkpoint> checkpoint;
  RecoveryReport commit_log;
  PhysicalOffset reput_from;  // where dispatch must start again
};

class StoreRecovery {
 public:
  StoreRecovery(Runtime& rt, const StoreConfig& config, CommitLog& log, ConsumeQueueTable& queues,
                IndexService& index);
  StoreRecovery(const StoreRecovery&) = delete;
  StoreRecovery& operator=(const StoreRecovery&) = delete;

  // Steps 1 to 5 above. Called once, on files nothing else has touched yet.
  Task<Result<RecoveryInfo>> run();

 private:
  // Step 1 (loads `queues_` from the consumequeue directory).
  Status load_files();
  Status load_consume_queues(bool scan_all);
  // Step 2.
  Status recover_commit_log();
  // Step 3.
  Status truncate_queues();
  // Whether unit `at` of `q` points at a whole record of that topic, queue and queue offset
  // (true for units below the log start, whose records were cleaned up).
  bool unit_matches_log(const ConsumeQueue& q, QueueOffset at, const cq::Unit& u) const;
  // Step 4.
  Task<Status> sync_truncations();
  // Step 5; sets info_.reput_from.
  Task<Status> recover_index();
  std::string path(std::string_view name) const;

  Runtime& rt_;
  const StoreConfig& config_;
  CommitLog& log_;
  ConsumeQueueTable& queues_;
  IndexService& index_;
  RecoveryInfo info_;
  bool ran_ = false;
};

}  // namespace ferry::store
