// What dispatch (message_store.h) and recovery (store_recovery.h) agree on about a stored
// record: how the store decodes the records it wrote itself, which records get no
// ConsumeQueue unit, and the filler records that mark a damaged range (log_damage.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/record_reader.h"
#include "common/sys_flag.h"
#include "store/store_config.h"

namespace ferry::store {

// A prepared or rolled-back transaction message is stored and indexed but has no ConsumeQueue
// unit (and keeps queue offset 0 in its record).
inline bool skips_consume_queue(std::int32_t sys_flag) {
  const std::int32_t t = sysflag::transaction_type(sys_flag);
  return t == sysflag::kTransactionPreparedType || t == sysflag::kTransactionRollbackType;
}

// Recovery in skip mode (recover_mode.h) overwrites a damaged CommitLog range with valid
// records of this topic (body zeros): dispatch gives them no ConsumeQueue unit and no index
// entry, so nothing points into the range. The `rmq_sys_` prefix keeps clients from writing it.
inline constexpr std::string_view kDamagedRangeTopic = "rmq_sys_FERRY_DAMAGED";
inline bool is_damage_filler(std::string_view topic) { return topic == kDamagedRangeTopic; }

// Decoding a record of this store's own log: no CRC check (recovery's CommitLog scan checked it,
// or this process just wrote it), at most message_size_max_bytes.
inline RecordDecodeOptions dispatch_options(const StoreConfig& c) {
  RecordDecodeOptions o;
  o.check_crc = false;
  o.size_bytes_max = static_cast<std::size_t>(c.message_size_max_bytes);
  return o;
}

}  // namespace ferry::store
