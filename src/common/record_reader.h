// Reads one CommitLog record (format: record_format.h, docs/commitlog-format.md) from the start of
// a byte span: a CommitLog file scanned during recovery or dispatch, or a pull reply body (records
// concatenated byte for byte; see message_decoder.h).
//
// decode_record() never reads outside `data` and never allocates unless it reports a problem.
// It tells apart:
//   message    a complete record that passes every check; `fields` views into `data`.
//   blank      the BLANK end-of-file marker; size_bytes = what it says is left of the file (>= 8),
//              i.e. the reader should move to the next file.
//   unwritten  the first 8 bytes are zero: nothing was ever written here (preallocated space).
//   torn       the bytes end before the record does (a write cut short, or a buffer that holds
//              only a prefix). size_bytes = the size the record claims when known, else 0.
//   corrupt    the bytes cannot be a record: bad magic, an impossible total size, lengths that
//              disagree with the total size, negative lengths, an empty topic, or (when
//              asked) a body CRC mismatch. Whatever is read as a message re-encodes
//              (record_writer.h) to the same bytes.
// For torn and corrupt, `detail` says what was seen (values and positions).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/big_endian.h"
#include "common/record_fields.h"
#include "common/record_format.h"

namespace ferry {

enum class RecordKind : std::uint8_t { message, blank, unwritten, torn, corrupt };
std::string_view record_kind_name(RecordKind k);

struct RecordDecodeOptions {
  // Recompute the body CRC and report a mismatch as corrupt (RocketMQ checks it on recovery).
  bool check_crc = true;
  // A TOTALSIZE above this is corrupt (RocketMQ's maxMessageSize applies to the whole record).
  std::size_t size_bytes_max = record::kDefaultRecordBytesMax;
};

struct [[nodiscard]] RecordRead {
  RecordKind kind = RecordKind::corrupt;
  // message: the record's length (advance by this much). blank: the rest of the file it claims.
  // torn: the length the record claims, or 0 if not even its first 8 bytes were there.
  std::size_t size_bytes = 0;
  RecordFields fields;  // meaningful only for kind == message
  std::string detail;   // torn / corrupt: what was seen
};

RecordRead decode_record(Bytes data, const RecordDecodeOptions& options = {});

// The PROPERTIES of the message record that `record` holds exactly, found by the lengths alone
// (no other field decoded, nothing allocated): the filter path of a pull reads only these.
// nullopt when the lengths do not fit the bytes (decode_record() says what is wrong).
std::optional<std::string_view> record_properties(Bytes record);

}  // namespace ferry
