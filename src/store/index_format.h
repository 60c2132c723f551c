// The IndexFile format: constants. Prose spec with a worked example: docs/store.md.
// Writer and reader: index_file.h.
//
// One file (big-endian throughout):
//   header  40 bytes: beginTimestamp i64 | endTimestamp i64 | beginPhyOffset i64 |
//                     endPhyOffset i64 | hashSlotCount i32 | indexCount i32
//   slots   slotCount x i32: the newest entry number whose key hashes to the slot, 0 = none
//   entries entryCount x 20 bytes: keyHash i32 | phyOffset i64 | timeDiffSeconds i32 |
//                     prevIndex i32 (the previous entry of the same slot, 0 = end of chain)
// Entry numbers start at 1 (indexCount starts at 1; entry 0 is never used), so a file holds at
// most entryCount - 1 keys. Key = "topic#key"; keyHash = abs(Java String.hashCode) with
// abs(INT_MIN) taken as 0; slot = keyHash % slotCount.
#pragma once

#include <cstddef>
#include <cstdint>

namespace ferry::store::index {

// Header fields.
inline constexpr std::size_t kBeginTimestampPos = 0;
inline constexpr std::size_t kEndTimestampPos = 8;
inline constexpr std::size_t kBeginPhyOffsetPos = 16;
inline constexpr std::size_t kEndPhyOffsetPos = 24;
inline constexpr std::size_t kHashSlotCountPos = 32;
inline constexpr std::size_t kIndexCountPos = 36;
inline constexpr std::size_t kHeaderBytes = 40;
static_assert(kIndexCountPos + 4 == kHeaderBytes, "the header is its six fields");

inline constexpr std::size_t kSlotBytes = 4;

// Entry fields.
inline constexpr std::size_t kEntryKeyHashPos = 0;
inline constexpr std::size_t kEntryPhyOffsetPos = 4;
inline constexpr std::size_t kEntryTimeDiffPos = 12;
inline constexpr std::size_t kEntryPrevIndexPos = 16;
inline constexpr std::size_t kEntryBytes = 20;
static_assert(kEntryPrevIndexPos + 4 == kEntryBytes, "an entry is its four fields");

// RocketMQ's defaults (maxHashSlotNum, maxIndexNum).
inline constexpr std::int32_t kDefaultSlotCount = 5'000'000;
inline constexpr std::int32_t kDefaultEntryCount = 20'000'000;

// The first entry number handed out; 0 means "no entry" in slots and chains.
inline constexpr std::int32_t kFirstEntry = 1;

constexpr std::int64_t file_size(std::int32_t slots, std::int32_t entries) {
  return static_cast<std::int64_t>(kHeaderBytes) +
         static_cast<std::int64_t>(slots) * static_cast<std::int64_t>(kSlotBytes) +
         static_cast<std::int64_t>(entries) * static_cast<std::int64_t>(kEntryBytes);
}
static_assert(file_size(kDefaultSlotCount, kDefaultEntryCount) == 420'000'040,
              "RocketMQ's index files are 420,000,040 bytes");

constexpr std::int64_t slot_pos(std::int32_t slot) {
  return static_cast<std::int64_t>(kHeaderBytes) + static_cast<std::int64_t>(slot) * kSlotBytes;
}
constexpr std::int64_t entry_pos(std::int32_t slots, std::int32_t entry) {
  return slot_pos(slots) + static_cast<std::int64_t>(entry) * static_cast<std::int64_t>(kEntryBytes);
}

}  // namespace ferry::store::index
