// RaftStorage: the durable state of one Raft server on the node's FileSystem: its term and vote,
// and its log. Format (docs/controller.md, "Raft files"):
//
//   <dir>/raft-meta  two 32-byte slots, written alternately:
//                      u64 sequence | u64 term | u64 voted_for | u32 crc32 of the 24 bytes before | u32 0
//                    load takes the valid slot with the higher sequence, so a torn write of one slot
//                    leaves the other.
//   <dir>/raft-log   records from index 1, each:
//                      u32 crc32 of everything after it | u32 data length | u64 index | u64 term |
//                      u16 entry type | data
//
// All integers big-endian. Writes (write_meta, append, truncate_from) change the files at once but
// are durable only when a later sync() completes; the Raft I/O (raft_io.h) acknowledges nothing
// before that. load() drops a torn tail (a last record cut short or failing its checksum: it was
// never synced, so never acknowledged) and says so; a bad record followed by a good record of the
// next index is damage to synced data and refused, as is a gap in the indexes.
//
// Bounds: one entry's data at most kEntryBytesMax; the whole log is read into memory by load()
// (snapshots are off, see raft_node.h), so its size is bounded by what the controller writes.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/file_system.h"
#include "runtime/result.h"
#include "runtime/task.h"

namespace ferry::controller {

inline constexpr std::size_t kRaftRecordHeaderBytes = 4 + 4 + 8 + 8 + 2;
inline constexpr std::size_t kRaftMetaSlotBytes = 8 + 8 + 8 + 4 + 4;
inline constexpr std::size_t kEntryBytesMax = 1 << 20;
static_assert(kRaftRecordHeaderBytes == 26, "crc, length, index, term, type");
static_assert(kRaftMetaSlotBytes == 32, "sequence, term, vote, crc, padding");

struct StoredEntry {
  std::uint64_t term = 0;
  std::uint16_t type = 0;  // RAFT_COMMAND, RAFT_BARRIER, RAFT_CHANGE
  std::vector<std::uint8_t> data;
};

struct LoadedState {
  std::uint64_t term = 0;
  std::uint64_t voted_for = 0;
  std::vector<StoredEntry> entries;  // index 1 first
  std::uint64_t dropped_tail_bytes = 0;  // a torn tail load() cut off
};

class RaftStorage {
 public:
  // Opens (creating) the two files under `dir` (created too). `fs` must outlive the storage.
  static Result<std::unique_ptr<RaftStorage>> open(FileSystem& fs, std::string dir);

  // Reads both files. Errors: corrupt (a damaged record before good ones, an index gap, both meta
  // slots damaged), io_error. Cuts a torn tail off the log file.
  Result<LoadedState> load();

  // The term and vote (written to the older slot).
  Status write_meta(std::uint64_t term, std::uint64_t voted_for);
  // Appends entry `index`, which must follow the last one (asserted).
  Status append(std::uint64_t index, std::uint64_t term, std::uint16_t type, Bytes data);
  // Drops entry `index` and every later one; `index` must be in 1..last_index()+1 (asserted).
  Status truncate_from(std::uint64_t index);
  // Makes every write before it durable (both files). Errors: io_error, no_space.
  Task<Status> sync();

  std::uint64_t last_index() const { return ends_.size(); }
  const std::string& dir() const { return dir_; }

 private:
  RaftStorage(FileSystem& fs, std::string dir, std::unique_ptr<File> meta, std::unique_ptr<File> log)
      : fs_(fs), dir_(std::move(dir)), meta_(std::move(meta)), log_(std::move(log)) {}
  struct RecordHead {
    std::uint64_t index;
    std::uint64_t term;
    std::uint16_t type;
    std::uint64_t end;  // file offset just past the record
  };
  Status load_meta(LoadedState& out);
  Status load_log(LoadedState& out);
  std::optional<RecordHead> read_record(std::uint64_t pos, std::uint64_t size,
                                        std::vector<std::uint8_t>& data, Status& error) const;

  FileSystem& fs_;
  std::string dir_;
  bool dir_synced_ = false;  // the files' names are durable
  std::unique_ptr<File> meta_;
  std::unique_ptr<File> log_;
  std::uint64_t meta_sequence_ = 0;
  std::vector<std::uint64_t> ends_;  // ends_[i]: file offset just past the record of index i+1
};

}  // namespace ferry::controller
