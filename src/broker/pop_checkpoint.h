// The records of the POP revive log (pop_revive_service.h): what makes handed-out messages come
// back after a restart or a failover.
//
// The log is the system topic rmq_sys_REVIVE_LOG_{cluster} (reviveQueueNum queues) in the
// CommitLog, so it is flushed, replicated to slaves and recovered like any message. Each record
// is a message of that topic whose TAGS say its kind and whose body is JSON, with RocketMQ 5's
// short keys (PopCheckPoint, AckMsg / BatchAckMsg):
//
//   "ck"            a checkpoint: one POP of one queue
//                   {"so":100,"pt":1700000000000,"it":60000,"bm":0,"n":2,"q":2,"t":"T","c":"G",
//                    "d":[0,3],"bn":"broker-a","rp":0}
//                   so: the queue offset the POP started at; d: each handed-out message's offset
//                   minus so; bm: bit i set = message i acknowledged; t: the topic the messages
//                   are in (the group's POP retry topic for retried ones); rp: how often the
//                   revive service re-opened it after failing to re-put a message
//   "ack"           acknowledgements of one checkpoint's messages
//                   {"ao":103,"aol":[103],"so":100,"c":"G","t":"T","q":2,"pt":1700000000000,"bn":"broker-a"}
//   "ferry_revived" Ferry's own: the checkpoint named by the same keys as an "ack" is closed,
//                   every message it still held having been re-put (no "ao" / "aol")
//
// A checkpoint is named by (t, c, q, so, pt); acks and the revived mark name it the same way.
// RocketMQ writes "ck" and "ack" as timer messages due at the revive time; Ferry writes them at
// once and keeps the open checkpoints in memory (pop_revive_service.h says why and how it is
// bounded). Decoding is defensive: a record that does not parse is an error naming the field.
#pragma once

#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "common/offsets.h"
#include "runtime/result.h"

namespace ferry::broker {

inline constexpr std::string_view kReviveTopicPrefix = "rmq_sys_REVIVE_LOG_";
inline constexpr std::string_view kReviveGroup = "CID_RMQ_SYS_REVIVE_GROUP";
inline constexpr std::string_view kReviveTagCheckpoint = "ck";
inline constexpr std::string_view kReviveTagAck = "ack";
inline constexpr std::string_view kReviveTagRevived = "ferry_revived";

std::string revive_topic(std::string_view cluster);

// Which checkpoint: the topic the messages are in, the group, the queue, the start offset and the
// pop time. Ordered (std::map keys), compared field by field.
struct PopCheckpointKey {
  std::string topic;
  std::string group;
  std::int32_t queue_id = 0;
  std::int64_t start_offset = 0;
  std::int64_t pop_time = 0;
  auto operator<=>(const PopCheckpointKey&) const = default;
  bool operator==(const PopCheckpointKey&) const = default;
};

struct PopCheckpoint {
  PopCheckpointKey key;
  std::int64_t invisible_time = 0;
  std::vector<std::int32_t> offset_diffs;  // "d": each message's queue offset - start_offset
  std::uint32_t acked_bits = 0;            // "bm": bit i = message i acknowledged
  std::string broker_name;
  std::int32_t revive_qid = 0;             // which revive queue holds it (not in the JSON)
  std::int32_t reput_times = 0;            // "rp"

  // When its unacknowledged messages come back.
  std::int64_t revive_time() const { return key.pop_time + invisible_time; }
  std::int32_t count() const { return static_cast<std::int32_t>(offset_diffs.size()); }
  bool all_acked() const;
  // The index of `queue_offset` among the messages, or -1.
  std::int32_t index_of(std::int64_t queue_offset) const;
  bool operator==(const PopCheckpoint&) const = default;
};

// An "ack" or "ferry_revived" record.
struct PopAckRecord {
  PopCheckpointKey key;
  std::string broker_name;
  std::vector<std::int64_t> offsets;  // empty for ferry_revived
  bool operator==(const PopAckRecord&) const = default;
};

std::string encode_checkpoint(const PopCheckpoint& ck);
// Errors (corrupt) name the field: malformed JSON, a missing key, more than kPopBatchMax messages.
Result<PopCheckpoint> decode_checkpoint(std::string_view json);
std::string encode_ack(const PopAckRecord& ack);
Result<PopAckRecord> decode_ack(std::string_view json);

}  // namespace ferry::broker
