// EpochFile: a broker's EpochCache kept on disk, `{store root}/epochFileCheckpoint` with its
// `.bak` (the format is epoch_cache.h's; the atomic replacement and the fallback to the backup are
// common/config_file.h's). Every change is made in memory and then written; a change returns
// once it is durable.
//
// Order on disk against the CommitLog (the callers keep it): an epoch is appended before the
// first byte of it is written or received, and entries are truncated after the log is. A crash
// between the two then leaves either an epoch that wrote nothing (replaced by the next append)
// or a log shorter than an entry (load() drops the entries starting past the log's end). Either
// way the epochs never claim bytes another master wrote.
//
// Threading: the node's loop only.
#pragma once

#include <string>

#include "common/config_file.h"
#include "runtime/runtime.h"
#include "store/ha/epoch_cache.h"

namespace ferry::store {

inline constexpr const char* kEpochFileName = "epochFileCheckpoint";

class EpochFile {
 public:
  // `path` is relative to the node's data root, e.g. "store/epochFileCheckpoint".
  EpochFile(Runtime& rt, std::string path);

  // Reads the file (or its backup); neither is an empty cache. Entries that start past
  // `log_end` are dropped (see above). Errors: corrupt naming both files and why.
  Status load(PhysicalOffset log_end);
  const EpochCache& cache() const { return cache_; }
  MasterEpoch last_epoch() const { return cache_.last_epoch(); }

  // EpochCache::append, then written. Errors: invalid_argument (the cache refused: the epoch is
  // not above the last one or starts before it), io_error, no_space.
  Task<Status> append(MasterEpoch epoch, PhysicalOffset start);
  // EpochCache::truncate_from_offset / truncate_from_epoch, then written when anything changed.
  Task<Status> truncate_from_offset(PhysicalOffset offset);
  Task<Status> truncate_from_epoch(MasterEpoch epoch);
  // Replaces the whole cache (a replica that shares no epoch with its master starts over).
  Task<Status> reset(EpochCache cache);

  const std::string& path() const { return file_.path(); }

 private:
  Task<Status> save();

  Runtime& rt_;
  ConfigFile file_;
  EpochCache cache_;
};

}  // namespace ferry::store
