// Writes CommitLog records (format: record_format.h, docs/commitlog-format.md).
//
// Two steps so the hot path never allocates: record_size() validates the fields and gives the
// exact length; the caller reserves that many bytes (in a mapped file, a reused buffer) and
// encode_record() writes them in place.
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/big_endian.h"
#include "common/record_fields.h"
#include "runtime/result.h"

namespace ferry {

// The exact encoded length of `f`. Errors (invalid_argument, naming the field and its size):
// an empty topic or one over 127 bytes, properties over 32767 bytes, a record over INT32_MAX
// bytes, or sys_flag IPv6 bits that disagree with born_host / store_host.
Result<std::size_t> record_size(const RecordFields& f);

// Writes `f` into out[0, n) and returns n. Precondition (asserted): record_size(f) succeeded and
// out.size() >= its result.
std::size_t encode_record(const RecordFields& f, MutableBytes out);

// The sys_flag of `f` with its IPv6 bits set from born_host / store_host.
std::int32_t with_host_flags(std::int32_t sys_flag, const HostPort& born, const HostPort& store);

// Writes the 8-byte BLANK end-of-file marker `{i32 file_remaining_bytes, i32 kBlankMagic}` into
// out[0, 8). file_remaining_bytes counts the marker itself (>= 8, <= INT32_MAX; asserted).
void encode_blank(std::size_t file_remaining_bytes, MutableBytes out);

}  // namespace ferry
