// Resetting a consumer group's offsets on a topic to a point in time (RocketMQ's
// ResetOffsetByTimeCommand), for mqadmin resetOffsetByTime and the dashboard.
//
// First, with the group's consumers online: INVOKE_BROKER_TO_RESET_OFFSET (222) to the master of
// each broker of the topic; the broker computes the offsets and tells every online consumer
// (RESET_CONSUMER_CLIENT_OFFSET), which restart their queues there and commit the new offsets.
//
// When a broker answers CONSUMER_NOT_ONLINE (206), as RocketMQ's tool the stored offsets are reset
// here (its resetOffsetByTimeOld path): SEARCH_OFFSET_BY_TIMESTAMP, then UPDATE_CONSUMER_OFFSET at
// each queue's master, awaiting its reply. A time after the newest message gives the queue's max
// offset. That path still refuses when some broker lists a consumer of the group
// (GET_CONSUMER_LIST_BY_GROUP: one that came online meanwhile would overwrite the reset with its
// own offset at its next commit).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli/admin_session.h"
#include "common/message_queue.h"
#include "common/offsets.h"

namespace ferry::cli {

struct OffsetResetRow {
  MessageQueue queue;
  // Known on the stored-offsets path only (the brokers compute them on the other).
  std::optional<QueueOffset> broker_offset;     // the queue's max offset
  std::optional<QueueOffset> consumer_offset;   // the group's committed offset before (none: never committed)
  std::optional<QueueOffset> timestamp_offset;  // the first message at or after the time
  QueueOffset reset_offset;
};

struct OffsetReset {
  bool through_consumers = false;  // the 222 path: the brokers told the online consumers
  std::vector<OffsetResetRow> rows;  // queue order (the 222 path: the brokers' order)
};

// `timestamp_ms` is the time; `to_max` ("now") asks the 222 path for each queue's max offset
// (RocketMQ's -1) and the stored path for the offset at `timestamp_ms`. `force` false: only move
// offsets back (a queue whose committed offset is before the time's keeps it). Errors: the
// NameServer's and brokers' (each names its broker and code); invalid_argument when the topic has
// no readable queue; busy when the stored path finds consumers online, naming them.
Result<OffsetReset> reset_offset_by_time(AdminSession& s, const std::string& group, const std::string& topic,
                                         std::int64_t timestamp_ms, bool to_max, bool force);

}  // namespace ferry::cli
