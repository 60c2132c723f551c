// IndexService: the store's key index over a directory of IndexFiles (RocketMQ's IndexService).
//
// Files: `{store_root}/index/{yyyyMMddHHmmssSSS}` (time_name.h), named from the node's wall
// clock when created. Names always sort in creation order: a new name is at least the previous
// name + 1 ms, even if the wall clock went back. Only the newest file receives keys; when it is
// full a new one is created.
//
// Indexed per message: "topic#UNIQ_KEY" and "topic#k" for every key of KEYS (space-separated).
// Rolled-back transactional messages are not indexed. A message whose offset is not past the
// newest file's end offset was indexed already (replay after recovery) and is skipped.
//
// Queries return candidate CommitLog offsets whose key HASH matched, newest first, without
// duplicates; the caller must re-read each record, drop offsets past the log end, and compare
// the key (RocketMQ's client does the same).
//
// Threading: the node's loop only; the service must outlive its flush().
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/offsets.h"
#include "runtime/clock.h"
#include "runtime/file_system.h"
#include "runtime/result.h"
#include "runtime/task.h"
#include "store/index_file.h"

namespace ferry::store {

// What the dispatcher indexes for one stored message.
struct IndexRequest {
  std::string_view topic;
  std::string_view keys;      // the KEYS property (space-separated), may be empty
  std::string_view uniq_key;  // the UNIQ_KEY property, may be empty
  PhysicalOffset offset;
  WallMs store_timestamp_ms = 0;
  std::int32_t sys_flag = 0;
};

struct [[nodiscard]] IndexQueryResult {
  std::vector<PhysicalOffset> offsets;  // newest first, no duplicates
  WallMs last_update_timestamp_ms = 0;  // newest file's endTimestamp (0 without files)
  PhysicalOffset last_update_phy_offset;  // newest file's endPhyOffset
};

class IndexService {
 public:
  IndexService(FileSystem& fs, const Clock& clock, const std::string& store_root,
               IndexGeometry geometry, std::size_t query_results_max = 64);
  IndexService(const IndexService&) = delete;
  IndexService& operator=(const IndexService&) = delete;

  // Opens every file of the directory in name order. A file whose size or header is wrong was
  // never synced whole (a crash): it and every newer file are removed, and lost_from() says
  // where re-indexing must start. Errors: corrupt naming a file whose name is not a 17-digit
  // time; io_error.
  Status load();
  // After load(): the CommitLog offset from which keys must be indexed again (nullopt: none
  // lost), and what was wrong with the first lost file.
  std::optional<PhysicalOffset> lost_from() const { return lost_from_; }
  const std::string& lost_detail() const { return lost_detail_; }

  // Indexes one message (see the class comment), whole or not at all: when its keys do not fit
  // what the newest file has left, the next file is created (the disk asked for room for it
  // first, file_room.h) before any key goes in, so a record that fails (no room, EIO) is indexed
  // whole by a later call, not skipped as a replay. Only a record with more keys than a whole
  // file holds is split across files. Errors: no_space ("disk full: the next index file needs N
  // bytes, M free"), io_error.
  Status build(const IndexRequest& request);

  // Offsets whose "topic#key" hash matches and whose store time is in [begin_ms, end_ms],
  // newest first, at most min(max_results, query_results_max). Errors: io_error.
  Result<IndexQueryResult> query(std::string_view topic, std::string_view key,
                                 std::size_t max_results, WallMs begin_ms, WallMs end_ms) const;

  // Cleanup: removes files (oldest first, never the newest) whose every entry points below
  // `log_min`. Returns how many were removed.
  Result<std::size_t> remove_files_before(PhysicalOffset log_min);

  // Crash recovery: removes the newest files whose entries reach `log_end` or beyond (they may
  // describe records that were lost), and empty newest files. Returns the smallest begin offset of the removed files
  // (where re-indexing must start), nullopt when none was removed.
  Result<std::optional<PhysicalOffset>> remove_files_from(PhysicalOffset log_end);
  // What remove_files_from(log_end) would return, removing nothing (so that the caller can
  // make a checkpoint stop vouching for those files before they go).
  std::optional<PhysicalOffset> reindex_from_if_removed(PhysicalOffset log_end) const;

  // Crash recovery, after remove_files_from(): repairs the newest file's slots (see
  // IndexFile::repair_slots; only the newest file kept can have been written after the last
  // index flush). Returns how many slots were rebuilt. Errors: io_error.
  Result<std::int32_t> repair_newest();

  // Makes every file written since the last flush durable. Errors: io_error.
  Task<Status> flush();

  std::size_t file_count() const { return files_.size(); }
  const IndexFile& file(std::size_t i) const { return *files_.at(i).file; }
  std::string directory() const { return dir_; }

 private:
  struct Entry {
    std::shared_ptr<IndexFile> file;
    bool dirty = false;
  };
  // The newest file if it has room, else a new one (roll_over()).
  Result<IndexFile*> writable_file();
  // Creates the next file (after asking the disk for room for it), which becomes the newest;
  // the one before keeps what it holds. Errors: no_space, io_error; nothing is created then.
  Status roll_over();
  Status put(std::string_view topic, std::string_view key, PhysicalOffset offset, WallMs ts);

  FileSystem& fs_;
  const Clock& clock_;
  std::string dir_;
  IndexGeometry geometry_;
  std::size_t query_results_max_;
  std::vector<Entry> files_;
  WallMs last_name_ms_ = -1;
  std::string key_buffer_;  // reused "topic#key" buffer
  std::optional<PhysicalOffset> lost_from_;
  std::string lost_detail_;
};

}  // namespace ferry::store
