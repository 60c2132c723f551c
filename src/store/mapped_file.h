// MappedFile: one fixed-size segment file of a MappedFileQueue (RocketMQ's MappedFile).
//
// A segment holds bytes [start_offset, start_offset + file_size) of its queue. Positions inside
// it are byte counts from its first byte. Three positions are tracked and always ordered:
//
//     0 <= flushed_position <= write_position <= file_size
//
//  * write_position: bytes appended so far; everything below it is readable (reads are memory
//    operations in both runtimes, see runtime/file_system.h).
//  * flushed_position: bytes known durable (a File::sync() that started after they were written
//    has completed successfully).
//
// Offsets here are raw byte offsets of the owning queue: a MappedFile serves both the CommitLog
// (whose offsets are PhysicalOffsets) and ConsumeQueues (whose byte offsets are 20 x the queue
// offset); the owners convert at their boundary.
//
// Threading: the node's loop only. Lifetime: views returned by view() pin the bytes and outlive
// the MappedFile safely; a flush() in progress must finish before the MappedFile is destroyed
// (the owner keeps it alive; see MappedFileQueue).
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "runtime/file_system.h"
#include "runtime/result.h"
#include "runtime/task.h"

namespace ferry::store {

class MappedFile {
 public:
  // Takes an open file whose size is already `file_size_bytes` (created and sized by the
  // queue). The positions start at 0; recovery moves them with set_write_position().
  MappedFile(std::unique_ptr<File> file, std::int64_t start_offset, std::int64_t file_size_bytes);
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const std::string& path() const { return file_->path(); }
  std::int64_t start_offset() const { return start_offset_; }
  std::int64_t file_size() const { return file_size_; }
  std::int64_t end_offset() const { return start_offset_ + file_size_; }
  std::int64_t write_position() const { return write_position_; }
  std::int64_t flushed_position() const { return flushed_position_; }
  std::int64_t remaining() const { return file_size_ - write_position_; }
  bool full() const { return write_position_ == file_size_; }
  // True when `offset` (a queue byte offset) falls inside this segment.
  bool contains(std::int64_t offset) const { return offset >= start_offset_ && offset < end_offset(); }

  // Writes `data` at the write position and advances it. The data must fit (data.size() <=
  // remaining(): callers decide roll-over before writing; a violation is a bug and aborts).
  // Errors: no_space / io_error from the file; then the write position is unchanged.
  Status append(Bytes data);

  // Declares the rest of the segment used without writing it (after a CommitLog BLANK marker:
  // the bytes past it are zeros already and are never read).
  void mark_full() { write_position_ = file_size_; }

  // Reads [pos, pos + buf.size()) of what was written; the range must lie below
  // write_position() (asserted). Errors: io_error.
  Status read(std::int64_t pos, MutableBytes buf) const;

  // A pinned zero-copy view of [pos, pos + len) clipped to the write position (so a view never
  // shows unwritten bytes). pos must be <= write_position().
  Result<FileView> view(std::int64_t pos, std::int64_t len) const;

  // Makes everything written so far durable. On success flushed_position() becomes at least the
  // write position seen when the call started. Errors: io_error (flushed_position unchanged).
  // A failed sync is fatal: the file is never flushed again in this life (every later call fails),
  // because a retried fsync after an error reports success over writes the disk never got.
  Task<Status> flush();

  // Recovery and truncation: moves the write position to `pos` (and the flushed position down
  // with it when it was beyond). Bytes between `pos` and the old write position are zeroed so
  // that a later scan cannot mistake stale bytes for records; the zeroing is made durable by
  // the next flush() (needs_sync() is true until then), so a second crash cannot bring the
  // stale bytes back under new data. Errors: io_error / no_space.
  Status set_write_position(std::int64_t pos);
  // Load: declares [0, pos) as written and durable without touching the bytes.
  void assume_written(std::int64_t pos);

  // The bytes loaded by assume_written() may be only in the page cache (after a process kill):
  // the next flush() syncs the file even if nothing new is written.
  void require_sync() { zeroed_unsynced_ = true; }
  // True when flush() has something to make durable (unflushed bytes or an unsynced zeroing).
  bool needs_sync() const { return flushed_position_ < write_position_ || zeroed_unsynced_; }

  File& file() { return *file_; }

 private:
  std::unique_ptr<File> file_;
  std::int64_t start_offset_;
  std::int64_t file_size_;
  std::int64_t write_position_ = 0;
  std::int64_t flushed_position_ = 0;
  bool zeroed_unsynced_ = false;  // set_write_position() zeroed bytes not yet synced
  bool sync_failed_ = false;      // a sync failed: flushed_position_ is final
};

}  // namespace ferry::store
