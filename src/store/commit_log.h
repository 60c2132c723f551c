// CommitLog: the append-only log of every stored message (RocketMQ's CommitLog), over a
// MappedFileQueue at `{root}/commitlog` (format: common/record_format.h, docs/store.md).
//
// Offsets are PhysicalOffsets: byte positions in the whole log. A record never spans two files:
// when `record + 8 > bytes left` the file is closed with the BLANK marker {left, 0xcbd43194}
// and the record goes to the next file, so the last 8 bytes of a file are always free for it.
//
// Writes are synchronous memory operations (runtime/file_system.h); durability is the
// FlushService's job. Threading: the node's loop only.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "common/offsets.h"
#include "common/record_fields.h"
#include "common/record_reader.h"
#include "runtime/file_system.h"
#include "runtime/result.h"
#include "runtime/time.h"
#include "store/mapped_file_queue.h"
#include "store/store_config.h"

namespace ferry::store {

enum class [[nodiscard]] AppendStatus : std::uint8_t {
  ok,
  message_illegal,       // a record larger than message_size_max_bytes or than a file allows
  invalid_fields,        // the codec refused the fields (topic or properties too long, host flags)
  no_space,              // the disk refused the write (nothing was appended)
  io_error,              // the file could not be created or written (nothing was appended)
};

struct [[nodiscard]] AppendResult {
  AppendStatus status = AppendStatus::ok;
  PhysicalOffset wrote_offset;  // where the first record starts
  std::int64_t wrote_bytes = 0;  // all records of the call
  std::string detail;            // why, when not ok
};

// A range of the log recovery marked unreadable in skip mode (log_damage.h).
struct DamagedRange {
  PhysicalOffset from;  // the bad record's start
  PhysicalOffset to;    // the next valid record (or the end of the file holding `from`)
  std::string detail;   // the file, the position and what was wrong there
};

// What recovery found at the end of the log.
struct RecoveryReport {
  PhysicalOffset end;           // the first byte after the last valid record
  std::int64_t records = 0;     // valid records scanned (fillers of skipped ranges not counted)
  std::int64_t dropped_bytes = 0;  // bytes cut off at the end (torn or corrupt tail)
  std::size_t files_removed = 0;   // segment files after the end, removed
  std::string reason;           // why the scan stopped ("unwritten", a torn / corrupt detail)
  // Mid-log corruption cut in truncate mode: the good data the cut discarded (0 records for a
  // torn tail).
  std::int64_t discarded_records = 0;
  std::int64_t discarded_bytes = 0;
  // Ranges marked unreadable in skip mode, oldest first (at most kDamagedRangesMax).
  std::vector<DamagedRange> skipped;
};

// More damaged ranges than this in one scan: recovery gives up (Errc::corrupt) whatever the
// mode; a disk that damaged this many places needs a replica, not a repair.
inline constexpr std::size_t kDamagedRangesMax = 1024;

class CommitLog {
 public:
  CommitLog(FileSystem& fs, const StoreConfig& config);
  CommitLog(const CommitLog&) = delete;
  CommitLog& operator=(const CommitLog&) = delete;

  // Opens the files (see MappedFileQueue::load); recover() must follow before appending.
  Status load();

  // Scans records from the start of file `first_file_index` (clamped to the existing files)
  // to the end: each record must have the message magic, a sane size, the body CRC and its own
  // offset in PHYSICALOFFSET; a BLANK moves to the next file. A record that fails is judged
  // (docs/store.md, "Recovery rules"):
  //  * a torn tail — it lies at or past `durable_below` (what the caller knows was synced: the
  //    checkpoint's physic offset after a crash, the whole log after a clean stop), or no valid
  //    record follows it anywhere in the log: the log ends there and is truncated (the tail
  //    zeroed, later files removed), as after any crash;
  //  * mid-log corruption — valid records follow it: config.recover_mode decides. abort returns
  //    Errc::corrupt naming the file, the offset, the good data after it and --recover; truncate
  //    cuts as for a torn tail and reports the good data discarded; skip marks the range up to
  //    the next valid record unreadable (log_damage.h), reports it, and goes on.
  // Errors: corrupt (abort, or more than kDamagedRangesMax ranges), invalid_argument (skip with a
  // message_size_max_bytes below two fillers, 224 bytes), io_error, no_space.
  Result<RecoveryReport> recover(std::size_t first_file_index, PhysicalOffset durable_below);

  // Appends `records` (one message, or a batch that is kept in one file) setting each one's
  // physical_offset and store_timestamp_ms as written. queue_offset etc. are the caller's.
  AppendResult append(std::span<RecordFields> records, WallMs store_timestamp_ms);
  // Closes the current file now with the BLANK marker at its write position, so that the next
  // append starts the next file: the roll-over append() does when a record does not fit, at an
  // earlier point (the format allows a BLANK at any position; recovery, dispatch and the age
  // walk all skip from a BLANK to the next file). A no-op when there is no file, or the last
  // one is empty or full. Errors: no_space, io_error (nothing was written).
  Status roll();
  // Replication (a slave): appends bytes a master sent, byte for byte, at `at`, which must be
  // max_offset() — or, on an empty log, a multiple of the file size (a new slave is fed from the
  // start of its master's last file). The bytes must fit the rest of the file at `at` (a master
  // sends from one file at a time); when they fill it, the next append starts the next file.
  // Records are not checked here (dispatch reads them). Errors: invalid_argument (wrong offset,
  // or the bytes cross a file end), no_space, io_error (nothing was appended).
  Status append_raw(PhysicalOffset at, Bytes data);
  // The encoded size of each record of the last successful append(), in order.
  std::span<const std::size_t> last_record_sizes() const { return sizes_; }

  PhysicalOffset min_offset() const { return PhysicalOffset(files_.min_offset()); }
  PhysicalOffset max_offset() const { return PhysicalOffset(files_.max_offset()); }
  PhysicalOffset flushed_offset() const { return PhysicalOffset(files_.flushed_offset()); }

  // A zero-copy view of [offset, offset + size), which must lie inside one file's written
  // bytes. Errors: not_found when no file holds it (cleaned up, or past the end).
  Result<FileView> view(PhysicalOffset offset, std::int32_t size) const;
  // A view from `offset` to the end of what is written in its file (for scanning).
  Result<FileView> view_to_file_end(PhysicalOffset offset) const;
  // The start of the file after the one holding `offset`.
  PhysicalOffset next_file_start(PhysicalOffset offset) const;
  // The store timestamp of the record at (offset, size). Errors: not_found, corrupt.
  Result<WallMs> store_timestamp(PhysicalOffset offset, std::int32_t size) const;

  // The newest STORETIMESTAMP among the records of file `file_index` (the file's age for
  // cleanup; the FileSystem keeps no modification time). Tracked on append for files this
  // process wrote; otherwise found once by walking the file's records, then cached. A file
  // without a record reads as 0 (expired). Errors: io_error.
  Result<WallMs> newest_store_timestamp(std::size_t file_index);

  // Cleanup (RocketMQ's deleteExpiredFile): removes files oldest first, never the last one, at
  // most `files_max`, while each is expired (now >= its newest store time + `reserved`) or
  // `at_once` is set; stops at the first file that is kept (no holes). Returns how many were
  // removed; min_offset() moves to the first file left. Errors: io_error (those before the
  // failing file are gone).
  Result<std::size_t> remove_expired(WallMs now_ms, Duration reserved, bool at_once,
                                     std::size_t files_max);

  MappedFileQueue& files() { return files_; }
  const MappedFileQueue& files() const { return files_; }
  std::int64_t file_size() const { return files_.file_size(); }

 private:
  Result<MappedFile*> file_with_room(std::int64_t total_bytes);
  // Writes the BLANK marker at `f`'s write position and marks `f` full.
  static Status close_with_blank(MappedFile& f);
  // recover(): a record at `bad` failed (`why`). Returns the end of the damaged range to skip
  // (skip mode), or nullopt when the log ends at `bad` (torn tail, or truncate mode, with
  // `report` filled in). Errors: corrupt (abort mode), io_error.
  Result<std::optional<PhysicalOffset>> judge_bad_record(PhysicalOffset bad, const std::string& why,
                                                         PhysicalOffset durable_below, RecoveryReport& report);
  // recover(), skip mode: marks [bad, good) unreadable and records it in `report`.
  Status skip_damaged_range(PhysicalOffset bad, PhysicalOffset good, const std::string& why, RecoveryReport& report);
  RecordDecodeOptions recovery_options() const;

  const StoreConfig& config_;
  MappedFileQueue files_;
  std::vector<std::uint8_t> buffer_;  // reused encode buffer
  std::vector<std::size_t> sizes_;    // reused record sizes of one append
  // File start offset -> newest store timestamp of its records (see newest_store_timestamp).
  // Bounded by the number of files; entries go with their files.
  std::map<std::int64_t, WallMs> newest_timestamp_;
};

}  // namespace ferry::store
