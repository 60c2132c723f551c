// RecordFields: the contents of one CommitLog record (record_format.h), as the writer takes them
// and the reader returns them.
//
// body, topic and properties are views. For the writer they must stay valid during the
// encode call; from the reader they point into the bytes that were decoded and live as long as
// those bytes. `properties` is the encoded text (properties.h), carried verbatim.
#pragma once

#include <cstdint>
#include <string_view>

#include "common/big_endian.h"
#include "common/host_port.h"
#include "common/offsets.h"
#include "runtime/time.h"

namespace ferry {

struct RecordFields {
  std::int32_t body_crc = 0;  // body_crc(body) for records the broker stores (crc.h)
  QueueId queue_id;
  std::int32_t flag = 0;
  QueueOffset queue_offset;
  PhysicalOffset physical_offset;
  std::int32_t sys_flag = 0;  // its IPv6 bits must agree with born_host / store_host
  WallMs born_timestamp_ms = 0;
  HostPort born_host;
  WallMs store_timestamp_ms = 0;
  HostPort store_host;
  std::int32_t reconsume_times = 0;
  std::int64_t prepared_transaction_offset = 0;
  Bytes body;
  std::string_view topic;
  std::string_view properties;
};

}  // namespace ferry
