// ConsumeQueue: the per topic-queue index of the CommitLog (RocketMQ's ConsumeQueue).
//
// Files: `{store_root}/consumequeue/{topic}/{queueId}/{20-digit start byte offset}`, each
// `units_per_file` units of 20 bytes (consume_queue_format.h; default 300,000 units = 6,000,000
// bytes). Unit i (queue offset i) sits at byte 20 * i of the queue.
//
// Offsets: queue offsets (QueueOffset) index units; min_offset() is the first unit that records
// a message still worth reading, max_offset() is one past the last unit. Both are 0 for a new
// queue. Units are dense: append() writes exactly at max_offset().
//
// Durability: append() changes memory only (see runtime/file_system.h); flush() makes units
// durable. Nothing here is needed for correctness of the CommitLog: after a crash the queue is
// rebuilt from the log past what it holds (recover() + truncate_dirty() + dispatch).
//
// Threading: the node's loop only. The queue must outlive its flush() tasks.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/offsets.h"
#include "runtime/file_system.h"
#include "runtime/result.h"
#include "runtime/task.h"
#include "runtime/time.h"
#include "store/consume_queue_format.h"
#include "store/mapped_file_queue.h"

namespace ferry::store {

// Reads the store timestamp of the record at (offset, size) from the CommitLog, for
// offset_by_time(). Errors: not_found when the record is gone (cleaned up), corrupt.
using StoreTimeLookup = std::function<Result<WallMs>(PhysicalOffset offset, std::int32_t size)>;

// A CommitLog range [from, to).
struct LogRange {
  PhysicalOffset from;
  PhysicalOffset to;
};

class ConsumeQueue {
 public:
  ConsumeQueue(FileSystem& fs, const std::string& store_root, std::string topic, QueueId queue_id,
               std::int64_t units_per_file = cq::kDefaultUnitsPerFile);
  ConsumeQueue(const ConsumeQueue&) = delete;
  ConsumeQueue& operator=(const ConsumeQueue&) = delete;

  // "{store_root}/consumequeue/{topic}/{queueId}".
  static std::string directory(const std::string& store_root, const std::string& topic,
                               QueueId queue_id);

  const std::string& topic() const { return topic_; }
  QueueId queue_id() const { return queue_id_; }

  // Opens the existing files (validation: see MappedFileQueue::load), then finds the end of the
  // written units by scanning up to the first unit that is neither a message nor a pre-blank,
  // and truncates there. After a clean stop only the last three files are scanned (RocketMQ);
  // after a crash (`scan_all`) every file is, since any unsynced file may have lost units.
  // Errors: corrupt (naming the file), io_error.
  Status load_and_recover(bool scan_all = false);

  QueueOffset min_offset() const { return min_offset_; }
  QueueOffset max_offset() const;
  // The CommitLog offset just past the last unit's record; nullopt when the queue is empty.
  std::optional<PhysicalOffset> last_record_end() const;

  // Writes `unit` (a message unit) at queue offset `at`. Returns true when written, false when
  // the same unit is already there (dispatch replayed after recovery): it is written again and
  // its file marked for sync all the same, since what recovery loaded may be only in the page
  // cache, and the checkpoint after the replay will say it is durable. A different unit there
  // was torn by a crash: the queue is cut at `at` and `unit` written (the replay rewrites the
  // rest).
  // `at` must not be beyond max_offset() (a gap is a bug), except on an empty queue, where any
  // at >= 0 starts the queue (earlier units of its file become pre-blanks).
  // Errors: no_space, io_error (nothing was written).
  Result<bool> append(QueueOffset at, const cq::Unit& unit);

  // The unit at `at`, which must lie in [min_offset(), max_offset()) (asserted).
  Result<cq::Unit> read(QueueOffset at) const;
  // A zero-copy view of up to `max_units` (> 0) units from `from` (in [min, max)), clipped to the
  // end of its file: callers loop. Decode with cq::decode_unit every kUnitBytes.
  Result<FileView> read_units(QueueOffset from, std::int64_t max_units) const;

  // Recovery, skip mode: rewrites as a hole (cq::hole_unit) every unit whose record starts in
  // one of `ranges` (sorted, disjoint CommitLog ranges marked unreadable), so that nothing points
  // into them. Walks back from the end to the first message unit before the first range.
  // Returns how many units became holes. Errors: io_error.
  Result<std::int64_t> mark_holes(std::span<const LogRange> ranges);
  // Dispatch after a skip: writes holes at [max_offset(), to) (the queue offsets of messages lost
  // in a damaged range that had no unit yet), so that a message at `to` can follow. The queue
  // must not be empty. Errors: no_space, io_error.
  Status append_holes(QueueOffset to);

  // Recovery: drops the units at the end of the queue whose record ends past `log_end` (the
  // CommitLog was truncated) or that `matches_log` rejects (a unit torn into garbage by a crash
  // may look like a message; the store checks the record it points at). Stops at the first
  // unit from the end that is a message within the log and matches, or a hole (mark_holes).
  using UnitCheck = std::function<bool(QueueOffset at, const cq::Unit& unit)>;
  Status truncate_dirty(PhysicalOffset log_end, const UnitCheck& matches_log = nullptr);
  // Cleanup/recovery: moves min_offset() to the first unit whose record starts at or after
  // `log_min` (messages before it were deleted from the CommitLog).
  Status correct_min_offset(PhysicalOffset log_min);
  // Cleanup: removes files whose every unit points below `log_min`; never the last file.
  // Returns how many were removed.
  Result<std::size_t> remove_files_before(PhysicalOffset log_min);
  // The CommitLog offset just past the record of the queue's last message unit, whatever
  // min_offset() says (so also once cleanup moved min past every unit); holes and pre-blanks at
  // the end are stepped over. nullopt when no file holds a message unit. Errors: io_error.
  Result<std::optional<PhysicalOffset>> last_message_end() const;
  // The paths remove_all() removes, in its order: the segment files newest first, then the
  // queue's directory. A crash after any prefix of them leaves a queue that loads: a prefix of
  // contiguous, full segments (still wholly expired), or an empty directory (an empty queue).
  std::vector<std::string> removal_order() const;
  // Removes every file of the queue, then its directory, in removal_order() (cleanExpiredCQ).
  // The queue is empty afterwards and must not be used again. Errors: io_error (what was removed
  // before stays removed).
  Status remove_all();

  // The first queue offset in [min, max) whose message was stored at or after `ts` (RocketMQ
  // 5's BoundaryType.LOWER; store times in a queue are assumed non-decreasing, as the wall clock
  // normally is), max_offset() when every message is older, min_offset() when every one is
  // newer. Binary search: O(log n) lookups. Errors: those of `lookup`.
  Result<QueueOffset> offset_by_time(WallMs ts, const StoreTimeLookup& lookup) const;

  // Makes the units appended so far durable. Errors: io_error.
  Task<Status> flush() { return files_.flush(); }
  QueueOffset flushed_offset() const;

  MappedFileQueue& files() { return files_; }

 private:
  std::int64_t unit_bytes_at(QueueOffset at) const {
    return at.value() * static_cast<std::int64_t>(cq::kUnitBytes);
  }
  Result<cq::Unit> read_any(QueueOffset at) const;  // any written unit (no min check)
  Status write_unit(const cq::Unit& unit);
  // Writes `unit` over the unit at `at` (which exists) and marks its file for the next flush.
  Status rewrite_unit(QueueOffset at, const cq::Unit& unit);

  std::string topic_;
  QueueId queue_id_;
  std::int64_t units_per_file_;
  MappedFileQueue files_;
  QueueOffset min_offset_{0};
};

// The store's table of ConsumeQueues, keyed by (topic, queue id) in name order (deterministic
// iteration). Lookups take a QueueKeyView, so the put path does not build a std::string.
using QueueKey = std::pair<std::string, std::int32_t>;
using QueueKeyView = std::pair<std::string_view, std::int32_t>;
struct QueueKeyLess {
  using is_transparent = void;
  template <typename A, typename B>
  bool operator()(const A& a, const B& b) const {
    const std::string_view at(a.first);
    const std::string_view bt(b.first);
    return at != bt ? at < bt : a.second < b.second;
  }
};
using ConsumeQueueTable = std::map<QueueKey, std::unique_ptr<ConsumeQueue>, QueueKeyLess>;

}  // namespace ferry::store
