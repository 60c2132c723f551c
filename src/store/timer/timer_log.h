// TimerLog: the timer wheel's entries on disk (docs/store.md, "Timer messages").
//
// A timer message is stored once, as a record of rmq_sys_wheel_timer queue 0 in the CommitLog.
// The TimerLog indexes those records by due time: one fixed-size entry per record (and one more
// each time a record is re-filed: "rolled", below), appended in arrival order, each linking back
// to the previous entry filed under the same wheel slot. The wheel (timer_wheel.h) holds, per
// slot, only the last entry's position and a count; walking `prev` from there yields the slot.
//
// Files: `{store_root}/timerlog/{20-digit start byte offset}`, `entries_per_file` entries each.
// Entry, kEntryBytes, big-endian:
//
//   0  SLOTMS     i64  the slot it is filed under (a multiple of the timer precision)
//   8  DELIVERMS  i64  the record's TIMER_OUT_MS; above SLOTMS when the due time lay beyond the
//                      wheel's window and the entry was filed under its last slot (rolled)
//  16  LOGOFFSET  i64  CommitLog offset of the timer record
//  24  PREV       i64  TimerLog position of the previous entry of the same slot, -1 for none
//  32  SIZE       i32  the record's size
//  36  CRC        u32  CRC-32 of bytes 0..35
//
// Nothing here is the truth about a timer: that is the CommitLog record. The TimerLog is derived
// from rmq_sys_wheel_timer's ConsumeQueue and cut back to the length the timer checkpoint names
// after a crash (what follows is derived again); read() checks each entry's CRC so that a damaged
// file is found, not followed.
//
// Threading: the node's loop only. The log must outlive its flush() tasks.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/file_system.h"
#include "runtime/result.h"
#include "runtime/task.h"
#include "store/mapped_file_queue.h"

namespace ferry::store::timer {

inline constexpr std::int64_t kEntryBytes = 40;
inline constexpr std::int64_t kNoEntry = -1;
inline constexpr std::int64_t kDefaultEntriesPerFile = 131'072;  // 5,242,880-byte files

struct Entry {
  std::int64_t slot_ms = 0;
  std::int64_t deliver_ms = 0;
  std::int64_t log_offset = 0;
  std::int64_t prev = kNoEntry;
  std::int32_t size = 0;

  bool rolled() const { return deliver_ms > slot_ms; }
  friend bool operator==(const Entry&, const Entry&) = default;
};

// The 40 bytes of `e` (CRC included) into `out`.
void encode_entry(const Entry& e, std::uint8_t* out);
// Errors: corrupt "timer log entry at {pos}: ..." (CRC mismatch, a negative offset or size, a
// slot above the due time).
Result<Entry> decode_entry(const std::uint8_t* in, std::int64_t pos);

class TimerLog {
 public:
  // `dir` relative to the node's data root ("store/timerlog"); entries_per_file > 0.
  TimerLog(FileSystem& fs, std::string dir, std::int64_t entries_per_file = kDefaultEntriesPerFile);
  TimerLog(const TimerLog&) = delete;
  TimerLog& operator=(const TimerLog&) = delete;

  // Opens the files (MappedFileQueue::load), every one taken as written; the caller then cuts
  // the log to the checkpoint's length with truncate(). Errors: corrupt naming the file, io_error.
  Status load();
  // Drops everything at or after `length` (a multiple of kEntryBytes). Errors: io_error.
  Status truncate(std::int64_t length);

  // Appends `e`; returns its position. Errors: no_space, io_error.
  Result<std::int64_t> append(const Entry& e);
  // The entry at `pos` (a multiple of kEntryBytes in [min_offset(), max_offset())).
  // Errors: not_found (outside the log), corrupt, io_error.
  Result<Entry> read(std::int64_t pos) const;

  std::int64_t min_offset() const { return files_.min_offset(); }
  std::int64_t max_offset() const { return files_.max_offset(); }
  std::int64_t flushed_offset() const { return files_.flushed_offset(); }
  std::int64_t file_bytes() const { return files_.file_size(); }
  // Syncs what was appended. Errors: io_error (see MappedFileQueue::flush).
  Task<Status> flush() { return files_.flush(); }
  // Removes whole files that end at or before `offset`, never the last one.
  Result<std::size_t> remove_files_before(std::int64_t offset) { return files_.remove_files_before(offset); }
  // Removes every file (a rebuild from the timer queue starts over). Errors: io_error.
  Status remove_all() { return files_.remove_all(); }
  const MappedFileQueue& files() const { return files_; }

 private:
  MappedFileQueue files_;
};

}  // namespace ferry::store::timer
