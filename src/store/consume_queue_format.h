// The ConsumeQueue unit format: constants, writer and reader. Prose spec: docs/store.md.
//
// A ConsumeQueue is an array of fixed 20-byte units, one per message of a topic queue, indexed
// by queue offset (unit i is at byte 20 * i of the queue):
//
//   COMMITLOGOFFSET i64 | SIZE i32 | TAGSCODE i64        (big-endian)
//
// TAGSCODE is Java's String.hashCode() of the TAGS property (0 without tags), or the delivery
// time for the delay topic. A unit that was never written reads as all zeros (size 0), which
// is how the end of a queue is found on recovery. A queue that starts at a non-zero queue offset
// has its file's leading units filled with the pre-blank {0, INT32_MAX, 0} (RocketMQ's
// fillPreBlank).
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/big_endian.h"
#include "common/offsets.h"

namespace ferry::store::cq {

inline constexpr std::size_t kCommitLogOffsetBytes = 8;
inline constexpr std::size_t kSizeBytes = 4;
inline constexpr std::size_t kTagsCodeBytes = 8;
inline constexpr std::size_t kUnitBytes = 20;
static_assert(kUnitBytes == kCommitLogOffsetBytes + kSizeBytes + kTagsCodeBytes,
              "a ConsumeQueue unit is exactly its three fields");

inline constexpr std::int64_t kDefaultUnitsPerFile = 300'000;
static_assert(kDefaultUnitsPerFile * static_cast<std::int64_t>(kUnitBytes) == 6'000'000,
              "RocketMQ's ConsumeQueue files are 6,000,000 bytes");

inline constexpr std::int32_t kPreBlankSize = INT32_MAX;

struct Unit {
  PhysicalOffset commit_log_offset;
  std::int32_t size = 0;
  std::int64_t tags_code = 0;

  // A unit that records a message (not unwritten, not a pre-blank).
  bool is_message() const { return commit_log_offset.value() >= 0 && size > 0 && size != kPreBlankSize; }
  bool is_unwritten() const { return commit_log_offset.value() == 0 && size == 0 && tags_code == 0; }
  bool is_pre_blank() const { return commit_log_offset.value() == 0 && size == kPreBlankSize; }
  // The CommitLog offset just past the record.
  PhysicalOffset end() const { return commit_log_offset + size; }
  bool operator==(const Unit&) const = default;
};

inline Unit pre_blank_unit() { return Unit{PhysicalOffset(0), kPreBlankSize, 0}; }

// A hole: the unit of a message whose CommitLog range recovery marked unreadable in skip mode
// (recover_mode.h). A pre-blank (readers and the queue's load step over it, so the queue stays
// dense) told apart by its tagsCode ("HOLE"): recovery keeps holes at a queue's end.
inline constexpr std::int64_t kHoleTagsCode = 0x484F4C45;
inline Unit hole_unit() { return Unit{PhysicalOffset(0), kPreBlankSize, kHoleTagsCode}; }
inline bool is_hole(const Unit& u) { return u.is_pre_blank() && u.tags_code == kHoleTagsCode; }

// Writes `u` into out[0, 20). out.size() >= 20 (the caller's buffer; not checked again here).
inline void encode_unit(const Unit& u, std::uint8_t* out) {
  store_be64(out, static_cast<std::uint64_t>(u.commit_log_offset.value()));
  store_be32(out + kCommitLogOffsetBytes, static_cast<std::uint32_t>(u.size));
  store_be64(out + kCommitLogOffsetBytes + kSizeBytes, static_cast<std::uint64_t>(u.tags_code));
}

inline Unit decode_unit(const std::uint8_t* in) {
  Unit u;
  u.commit_log_offset = PhysicalOffset(static_cast<std::int64_t>(load_be64(in)));
  u.size = static_cast<std::int32_t>(load_be32(in + kCommitLogOffsetBytes));
  u.tags_code = static_cast<std::int64_t>(load_be64(in + kCommitLogOffsetBytes + kSizeBytes));
  return u;
}

}  // namespace ferry::store::cq
