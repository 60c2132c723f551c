// EpochCache: which master epoch wrote which range of the CommitLog (RocketMQ 5's
// EpochFileCache, controller mode). Each entry is (epoch, start offset); an entry ends where the
// next one starts, the last one at the log's end. A new master appends (its epoch, its max
// offset); a rejoining replica compares its entries with its master's to find the last offset
// both logs agree on (consistent_point()) and truncates its log, and its entries, to it.
//
// File format (RocketMQ's CheckpointFile, `epochFileCheckpoint`, kept with a `.bak` copy):
//
//   <number of entries>\n
//   <CRC32 of the entry lines, bytes as written, & 0x7FFFFFFF>\n
//   <epoch>-<start offset>\n          one line per entry, in epoch order
//
// e.g. "2\n<crc>\n1-0\n3-4096\n". A CRC of 0 is not checked (RocketMQ's rule). decode() refuses
// a count or CRC that does not match, a line that is not two numbers, and entries out of order.
//
// Departure: RocketMQ refuses to append an epoch whose start offset equals the last entry's (an
// epoch that wrote nothing), so the new epoch goes unrecorded. Ferry replaces that empty entry:
// the new epoch starts where the empty one did.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "common/offsets.h"
#include "runtime/result.h"

namespace ferry::store {

using MasterEpoch = std::int32_t;

struct EpochEntry {
  MasterEpoch epoch = 0;
  PhysicalOffset start{0};
  bool operator==(const EpochEntry&) const = default;
};
// "epoch 3 from 4096" (GoogleTest prints values with it).
inline std::ostream& operator<<(std::ostream& out, const EpochEntry& e) {
  return out << "epoch " << e.epoch << " from " << e.start.value();
}

class EpochCache {
 public:
  EpochCache() = default;
  // Entries in strictly increasing epoch and non-decreasing start order (asserted).
  explicit EpochCache(std::vector<EpochEntry> entries);

  const std::vector<EpochEntry>& entries() const { return entries_; }
  bool empty() const { return entries_.empty(); }
  // The last epoch, or -1 when empty (RocketMQ's lastEpoch()).
  MasterEpoch last_epoch() const { return entries_.empty() ? -1 : entries_.back().epoch; }

  // A new master's epoch starting at `start`. False (nothing changes) unless `epoch` is above the
  // last epoch and `start` is not below the last start; an empty last epoch is replaced.
  bool append(MasterEpoch epoch, PhysicalOffset start);

  // The end of entry `i`: the next entry's start, or `log_end` for the last.
  PhysicalOffset end_of(std::size_t i, PhysicalOffset log_end) const;
  // The entry whose range holds `offset` (the last one for offsets at or past its start).
  std::optional<EpochEntry> entry_at(PhysicalOffset offset) const;

  // The highest offset up to which this log (ending at `log_end`) and the master's (`master`,
  // ending at `master_end`) hold the same epochs: walking this cache's epochs from the newest, the
  // first one the master has with the same start gives min(both ends of that epoch). nullopt when
  // they share no epoch (the replica must start over from the master's log).
  std::optional<PhysicalOffset> consistent_point(PhysicalOffset log_end, const EpochCache& master,
                                                 PhysicalOffset master_end) const;

  // Drops the entries starting at or after `offset` (the log was truncated there).
  void truncate_from_offset(PhysicalOffset offset);
  // Drops the entries of `epoch` and later.
  void truncate_from_epoch(MasterEpoch epoch);
  // Drops the entries that end at or before `offset` (the log's head was deleted up to it), but
  // never the last one.
  void truncate_before_offset(PhysicalOffset offset);

  std::string encode() const;
  // Errors: corrupt, naming what did not match.
  static Result<EpochCache> decode(std::string_view text);

 private:
  std::vector<EpochEntry> entries_;
};

}  // namespace ferry::store
