// LogDamage: what CommitLog recovery (CommitLog::recover, commit_log.h) does after a record that
// fails its checks: look past it for good data, count that data for the operator, and, in skip
// mode (recover_mode.h), mark the damaged range unreadable in place.
//
// A *valid record* here is one a reader can trust on its own: the message magic at +4, its own
// position in PHYSICALOFFSET, lengths that agree with TOTALSIZE (at most message_size_max_bytes)
// and, when the options ask for it, its body CRC. Records carry their own offset, so a record
// found by searching the bytes after the damage is not a stray copy of another one.
//
// Marking a range: [from, to) of one file is overwritten with filler records (dispatch_rules.h:
// topic kDamagedRangeTopic, zero body) that scans, dispatch and HA slaves read as ordinary
// records without a ConsumeQueue unit or index entry; a range reaching the end of its file is
// overwritten with a BLANK marker instead (every reader already moves to the next file there).
// The writes go through File::pwrite and the file is marked for sync; the caller makes them
// durable before anything new is appended (StoreRecovery step 4).
//
// Bounds: each search is one pass over the bytes from its start to the end of the log, a 4-byte
// pattern search, with a full decode only where the magic and the stored offset both match. A
// range is filled with at most ceil(range / message_size_max) + 1 records.
//
// Threading: the node's loop, during recovery only (nothing else reads the files yet).
#pragma once

#include <cstdint>
#include <optional>

#include "common/offsets.h"
#include "common/record_reader.h"
#include "runtime/result.h"
#include "store/mapped_file_queue.h"
#include "store/store_config.h"

namespace ferry::store {

// The first offset at or after `from` where a valid record starts: searched in the file holding
// `from` from there, then in every later file from its start. nullopt when there is none.
// Errors: io_error (a view failed).
Result<std::optional<PhysicalOffset>> find_next_valid_record(const MappedFileQueue& files, PhysicalOffset from,
                                                             const RecordDecodeOptions& options);

// The good data from `first` (a valid record's start) to the end of the log.
struct GoodData {
  std::int64_t records = 0;        // valid records
  std::int64_t bytes = 0;          // their bytes
  std::int64_t damaged_ranges = 0; // further bad places stepped over on the way
  std::size_t files = 0;           // files holding at least one of them
  PhysicalOffset last_end;         // the end of the last one
};
// Walks the records from `first`, a BLANK moving to the next file, stepping over further damage
// with find_next_valid_record. One pass. Errors: io_error.
Result<GoodData> count_good_data(const MappedFileQueue& files, PhysicalOffset first, const RecordDecodeOptions& options);

// The smallest range write_fillers() can fill (one filler record with an empty body).
std::int64_t filler_bytes_min();

// Overwrites file positions [from_pos, to_pos) of `f` with filler records, none larger than
// `record_bytes_max` (>= 2 * filler_bytes_min()). The range must hold at least
// filler_bytes_min() bytes (asserted) and end at least 8 bytes before the file end (asserted:
// the end of a file is marked with mark_to_file_end). Errors: io_error, no_space.
Status write_fillers(MappedFile& f, std::int64_t from_pos, std::int64_t to_pos, std::int64_t record_bytes_max);

// Overwrites file positions [pos, file end) of `f` with a BLANK marker claiming them all.
// Errors: io_error, no_space.
Status mark_to_file_end(MappedFile& f, std::int64_t pos);

}  // namespace ferry::store
