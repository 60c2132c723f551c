// IndexFile: one hash index from message keys to CommitLog offsets (format: index_format.h,
// docs/store.md; RocketMQ's IndexFile).
//
// A key is "topic#key". put() links a new entry at the head of its slot's chain (newest first);
// query() walks the chain and returns the offsets of entries whose key HASH matches and whose
// store time lies in the asked range. Matches are by hash: callers must re-read each record and
// compare the key.
//
// Durability: put() changes memory (header included) only; flush() makes the file durable.
// After a crash the file may hold a torn tail; the reader tolerates it: a chain walk follows
// only strictly decreasing entry numbers below indexCount and stops at anything else, so it is
// bounded and never loops. Entries pointing past the recovered CommitLog end are filtered by
// the caller (IndexService), which also re-checks keys.
//
// Threading: the node's loop only; the file must outlive its flush().
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/offsets.h"
#include "runtime/file_system.h"
#include "runtime/result.h"
#include "runtime/task.h"
#include "runtime/time.h"
#include "store/index_format.h"

namespace ferry::store {

struct IndexHeader {
  WallMs begin_timestamp_ms = 0;
  WallMs end_timestamp_ms = 0;
  PhysicalOffset begin_phy_offset;
  PhysicalOffset end_phy_offset;
  std::int32_t hash_slot_count = 0;  // slots that hold a chain
  std::int32_t index_count = index::kFirstEntry;  // next entry number
};

struct IndexGeometry {
  std::int32_t slots = index::kDefaultSlotCount;
  std::int32_t entries = index::kDefaultEntryCount;
  std::int64_t file_size() const { return index::file_size(slots, entries); }
};

class IndexFile {
 public:
  // Creates `path` zero-filled with a fresh header (fails with already_exists if it exists).
  // When it cannot be sized (no_space, io_error) the file is removed again.
  static Result<std::unique_ptr<IndexFile>> create(FileSystem& fs, const std::string& path,
                                                   IndexGeometry geometry);
  // Opens an existing file. Errors: not_found; corrupt (naming the file) when its size does
  // not match the geometry or its header counts are out of range.
  static Result<std::unique_ptr<IndexFile>> open(FileSystem& fs, const std::string& path,
                                                 IndexGeometry geometry);

  const std::string& path() const { return file_->path(); }
  const IndexHeader& header() const { return header_; }
  const IndexGeometry& geometry() const { return geometry_; }
  bool full() const { return header_.index_count >= geometry_.entries; }

  // Indexes `key` -> `offset` stored at `store_timestamp_ms`. Returns false (writing nothing)
  // when the file is full. Errors: io_error, no_space.
  Result<bool> put(std::string_view key, PhysicalOffset offset, WallMs store_timestamp_ms);

  // Appends to `out` the offsets of entries whose key hash equals key's and whose store time
  // (second precision: begin + timeDiff * 1000) lies in [begin_ms, end_ms], newest first, until
  // `out` holds `max_total` offsets. Errors: io_error.
  Status query(std::string_view key, std::size_t max_total, WallMs begin_ms, WallMs end_ms,
               std::vector<PhysicalOffset>& out) const;

  // Crash repair. After a crash the header may be the last synced one while a slot kept a newer,
  // unsynced value (a torn write: the slot's sector survived, the header's did not). Such a
  // slot points at an entry >= indexCount, which hides every older entry of its chain from
  // query() (and put() would drop the chain). Every slot outside [0, indexCount) is rebuilt
  // from the entries below indexCount (the newest entry of that slot, or 0); entries below
  // indexCount were synced with the header that counts them. Returns how many slots were
  // rebuilt (0 needs no entry scan). The writes are durable at the next flush.
  // Errors: io_error.
  Result<std::int32_t> repair_slots();

  // Whether [begin_ms, end_ms] overlaps the file's time span (RocketMQ's isTimeMatched).
  bool time_overlaps(WallMs begin_ms, WallMs end_ms) const;

  Task<Status> flush() { return file_->sync(); }

 private:
  IndexFile(std::unique_ptr<File> file, IndexGeometry geometry, IndexHeader header);
  Status write_header();
  Result<std::int32_t> read_i32(std::int64_t pos) const;

  std::unique_ptr<File> file_;
  IndexGeometry geometry_;
  IndexHeader header_;
};

}  // namespace ferry::store
