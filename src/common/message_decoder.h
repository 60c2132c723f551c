// From stored records to MessageExt: one record (store side: query by id, dispatch, send-back),
// or a whole pull reply body (client side: records concatenated byte for byte).
#pragma once

#include <cstddef>
#include <vector>

#include "common/big_endian.h"
#include "common/message.h"
#include "common/record_fields.h"
#include "common/record_format.h"
#include "runtime/result.h"

namespace ferry {

// Copies a decoded record into a MessageExt: parses its properties and computes its offset
// msgId. The body is kept as stored (still compressed when sys_flag says so).
// Errors: corrupt when the properties text is malformed (properties.h).
Result<MessageExt> to_message_ext(const RecordFields& f, std::size_t store_size);

struct MessagesDecodeOptions {
  bool check_crc = false;  // RocketMQ clients do not check it by default
  // Inflate compressed bodies (sys_flag kCompressed) and clear kCompressed on the result.
  bool decompress = true;
  std::size_t body_size_bytes_max = 64 * 1024 * 1024;  // bound on one decompressed body
  std::size_t record_size_bytes_max = record::kDefaultRecordBytesMax;
  std::size_t messages_max = 4096;
};

// Decodes every record of `data`, which must hold whole records only.
// Errors: corrupt (a torn, corrupt, blank or unwritten record, or malformed properties; the
// detail names the record's index and byte position), invalid_argument (more than messages_max
// records, or a body that inflates past body_size_bytes_max), unsupported (LZ4/ZSTD bodies).
Result<std::vector<MessageExt>> decode_messages(Bytes data, const MessagesDecodeOptions& options);

}  // namespace ferry
