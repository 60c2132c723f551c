// The SEND_BATCH_MESSAGE (320) body: messages back to back, each
//
//   i32 totalSize | i32 magic | i32 bodyCrc | i32 flag | i32 bodyLen | body | i16 propLen | props
//
// big-endian, totalSize counting the whole entry (itself included). Clients write magic 0 and
// CRC 0; the broker computes the CRC when it stores each entry as its own record.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "common/big_endian.h"
#include "runtime/result.h"

namespace ferry::broker {

inline constexpr std::size_t kBatchEntryFixedBytes = 4 + 4 + 4 + 4 + 4 + 2;
static_assert(kBatchEntryFixedBytes == 22);
inline constexpr std::size_t kBatchEntriesMax = 4096;

struct BatchEntry {
  std::int32_t flag = 0;
  Bytes body;                   // views into the request body
  std::string_view properties;  // encoded text
};

// Errors (invalid_argument) say which entry and field is wrong and at which byte: a totalSize
// that disagrees with the lengths inside, a truncated entry, a negative length, more than
// kBatchEntriesMax entries, or no entry at all.
Result<std::vector<BatchEntry>> decode_batch(Bytes body);

}  // namespace ferry::broker
