// MappedFileQueue: a directory of contiguous fixed-size segment files forming one logical byte
// queue (RocketMQ's MappedFileQueue). The CommitLog and every ConsumeQueue are one each.
//
// Layout: `dir/{20-digit start offset}`; segment i+1 starts where segment i ends; every segment
// is `file_size` bytes long on disk (zero-filled when created; see load() for crashes). Only the last segment
// is written to; all before it are full (their write position equals the file size).
//
//   min_offset() = first segment's start           (0 when there is no segment)
//   max_offset() = last segment's start + its write position (0 when there is none)
//   flushed_offset() <= max_offset(): below it, everything is durable.
//
// Offsets are raw byte offsets of this queue (see mapped_file.h for why they are untyped here).
//
// Threading: the node's loop only. Segments are held by shared_ptr so that a flush in progress
// keeps its segment alive across truncation or deletion. Coroutines here are members: the queue
// must outlive them (owners are components, which outlive the node's tasks).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/file_system.h"
#include "runtime/result.h"
#include "runtime/task.h"
#include "store/file_room.h"
#include "store/mapped_file.h"

namespace ferry::store {

class MappedFileQueue {
 public:
  // `dir` is relative to the node's data root; `file_size_bytes` > 0. `room` names the files in
  // a disk-full error (the directory when empty) and the reserve a creation keeps (file_room.h).
  MappedFileQueue(FileSystem& fs, std::string dir, std::int64_t file_size_bytes, FileRoom room = {});
  MappedFileQueue(const MappedFileQueue&) = delete;
  MappedFileQueue& operator=(const MappedFileQueue&) = delete;

  // Opens the segments found in the directory (creating the directory if missing). Every loaded
  // segment is taken as fully written: recovery then calls truncate(offset) at the end of valid
  // data. Validation, each failure an Errc::corrupt naming the file:
  //  * every name is 20 decimal digits and a multiple of the file size;
  //  * names are contiguous (each starts where the previous ends);
  //  * no segment is longer than the file size. A shorter one lost the unsynced part of its
  //    creation in a crash (sizes are durable only after a sync): it is grown with zeros, and
  //    recovery then finds the end of the valid data inside it.
  // Must be called once, before any other operation, on an empty queue.
  Status load();

  const std::string& dir() const { return dir_; }
  std::int64_t file_size() const { return file_size_; }
  bool empty() const { return files_.empty(); }
  std::size_t file_count() const { return files_.size(); }
  std::int64_t min_offset() const;
  std::int64_t max_offset() const;
  std::int64_t flushed_offset() const;

  MappedFile* first_file() const { return files_.empty() ? nullptr : files_.front().get(); }
  MappedFile* last_file() const { return files_.empty() ? nullptr : files_.back().get(); }
  MappedFile* file_at(std::size_t index) const;
  // The segment containing `offset`, or nullptr when no segment does.
  MappedFile* find(std::int64_t offset) const;

  // The segment to append to: the last one when it has room, otherwise a new segment starting
  // where the last one ends (or at `start_if_empty`, a multiple of the file size, when the queue
  // has no segment). Uses a pre-allocated segment when one is ready. A new segment is created
  // only when check_room_for_next() passes: otherwise no_space with its detail, and no file is
  // touched. Errors: no_space, io_error.
  Result<MappedFile*> file_for_append(std::int64_t start_if_empty = 0);
  // Whether the next segment can be had without new space: ok when the pre-allocated successor
  // is ready, or when the disk has the segment's size plus the reserve free (file_room.h).
  // Errors: no_space "disk full: the next {what} file needs N bytes, M free".
  Status check_room_for_next() const;

  // Recovery: everything at or after `offset` is dropped. The segment containing it keeps
  // [start, offset) (the rest is zeroed); segments starting at or after `offset` are removed.
  // `offset` must be >= min_offset() unless the queue becomes empty.
  Status truncate(std::int64_t offset);

  // Cleanup: removes whole segments that end at or before `offset`, oldest first, never the
  // last segment. Returns how many were removed. Errors: io_error from remove (the segments
  // before the failing one are gone).
  Result<std::size_t> remove_files_before(std::int64_t offset);
  // Removes every segment, newest first (a crash leaves a contiguous prefix), then the directory
  // (already gone is fine). The queue is empty afterwards. Errors: io_error from remove (what was
  // removed before stays removed).
  Status remove_all();

  // Syncs every segment holding unflushed bytes, oldest first. On success flushed_offset() is at
  // least max_offset() as of the call. Errors: io_error (flushed_offset() stays where the last
  // successful sync left it).
  //
  // A failed sync is fatal for the data it covered: on Linux the dirty pages of a failed fsync
  // are marked clean without reaching the disk, so a retry would "succeed" over lost data. After
  // the first failure the queue is poisoned: flushed_offset() never moves again, every later
  // flush() returns that first error, and sync_failure() holds it until the process restarts
  // (recovery then finds what really is on the disk).
  Task<Status> flush();
  const std::optional<Error>& sync_failure() const { return sync_failure_; }

  // Recovery after an abnormal stop: writes every byte from `offset` to the end of what is
  // written again (the same bytes) and marks those segments for sync, so that the next flush()
  // makes them durable. What recovery reads may be only in the page cache: after a failed fsync
  // Linux marks the pages clean without writing them, a killed process leaves them behind, and
  // a later fsync would skip them — a power loss would then leave a hole under newer, synced
  // records. `offset` is the last offset known durable (the checkpoint's). Errors: io_error.
  Status rewrite_for_sync(std::int64_t offset);

  // Creates the segment after the last one empty and reserves its full size with
  // File::allocate (asynchronous: production fallocates on the I/O thread), so that the next
  // roll-over need not wait for the disk; on an empty queue, the first segment, starting at
  // `start_if_empty`. A no-op when one is ready or being prepared. Intended to be spawned right
  // after a roll-over (or awaited when a store opens empty); the queue must outlive
  // it. If the queue rolls over onto that start meanwhile, the roll-over creates the segment
  // itself (same file) and the prepared handle is dropped; if it is truncated below it, the
  // file is removed again. Nothing is created without room for the whole segment (no_space from
  // check_room_for_next(), no file touched). Errors: no_space, io_error (the file is removed; the
  // roll-over will then create it itself).
  Task<Status> preallocate_next(std::int64_t start_if_empty = 0);
  // True when preallocate_next() would prepare a segment (none ready or being prepared).
  bool preallocation_wanted() const { return !ready_ && !preparing_; }
  // True when the segment after the last one is ready.
  bool next_ready() const { return ready_ != nullptr; }

 private:
  Result<std::shared_ptr<MappedFile>> open_segment(std::int64_t start, bool create);
  // Drops the pre-allocated segment and removes its file (an orphan would break contiguity).
  Status discard_ready();

  FileSystem& fs_;
  std::string dir_;
  std::int64_t file_size_;
  FileRoom room_;
  std::vector<std::shared_ptr<MappedFile>> files_;
  std::shared_ptr<MappedFile> ready_;        // pre-allocated successor of the last segment
  std::optional<std::int64_t> preparing_;    // start of a segment being pre-allocated
  std::optional<Error> sync_failure_;        // the first failed sync (see flush())
};

}  // namespace ferry::store
