// The results of the MessageStore's put and get operations (RocketMQ's PutMessageStatus,
// GetMessageStatus, GetMessageResult), and how the broker maps them to response codes
// (docs/compatibility.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/offsets.h"
#include "runtime/file_system.h"
#include "runtime/time.h"

namespace ferry::store {

enum class [[nodiscard]] PutStatus : std::uint8_t {
  ok,
  flush_disk_timeout,        // stored, but not synced within sync_flush_timeout (code 10)
  service_not_available,     // the disk is full or the store is shut down (code 14)
  create_mapped_file_failed, // a CommitLog file could not be created or written
  message_illegal,           // body or record over the size limit, bad topic (code 13)
  properties_size_exceeded,  // properties over 32767 bytes (code 13)
  flush_slave_timeout,       // SYNC_MASTER: stored, no slave confirmed it within 3 s (code 12)
  slave_not_available,       // SYNC_MASTER: stored, no slave connected or it lags too far (code 11)
};
std::string_view put_status_name(PutStatus s);

struct [[nodiscard]] PutResult {
  PutStatus status = PutStatus::ok;
  PhysicalOffset wrote_offset;    // the first record
  std::int64_t wrote_bytes = 0;   // all records
  QueueOffset queue_offset;       // of the first message
  std::int32_t message_count = 0; // records written (their msgIds: MessageStore::offset_msg_ids)
  // A batch's record sizes in order (empty for one record: wrote_bytes is its size), so its
  // msgIds need no read of the log.
  std::vector<std::int64_t> record_sizes;
  WallMs store_timestamp_ms = 0;
  std::string detail;             // why, when not ok
  PhysicalOffset end() const { return wrote_offset + wrote_bytes; }
  bool stored() const { return status == PutStatus::ok || status == PutStatus::flush_disk_timeout; }
};

enum class [[nodiscard]] GetStatus : std::uint8_t {
  found,
  no_matched_message,     // units scanned, none passed the tag filter
  message_was_removing,   // units point at CommitLog data already deleted
  offset_found_null,      // a unit could not be read
  offset_overflow_badly,  // offset > max
  offset_overflow_one,    // offset == max (nothing new yet: the long-polling case)
  offset_too_small,       // offset < min
  no_matched_logic_queue, // no such queue
  no_message_in_queue,    // the queue is empty
};
std::string_view get_status_name(GetStatus s);

struct [[nodiscard]] GetMessageResult {
  GetStatus status = GetStatus::no_matched_logic_queue;
  std::vector<FileView> messages;  // stored records, byte for byte (each pins its file range)
  std::vector<QueueOffset> queue_offsets;  // of each message
  std::int64_t total_bytes = 0;
  QueueOffset next_begin_offset;
  QueueOffset min_offset;
  QueueOffset max_offset;
  // The CommitLog offset of the last ConsumeQueue unit the scan read, the one that ended a full
  // batch included (RocketMQ's maxPhyOffsetPulling); unset when no unit was read. With the
  // store's max_phy_offset() it tells how far behind the log end the consumer reads, which the
  // broker turns into suggestWhichBrokerId.
  std::optional<PhysicalOffset> last_scanned_phy_offset;
};

}  // namespace ferry::store
