// PopOrderManager: FIFO (orderly) POP, one batch of a queue at a time (RocketMQ 5's
// ConsumerOrderInfoManager).
//
// A POP with order=true reads a queue from the group's committed offset and does not move it:
// the batch it hands out is remembered per (topic, group, queue), and the queue is blocked for
// the group while any message of that batch is unacknowledged and still invisible (its pop time
// + invisible time, or the time a change gave that message). A POP with the same attemptId as the
// batch's is not blocked (a client retrying the same request gets the batch again). Acks commit:
// the group's offset moves to the batch's first unacknowledged offset (or past its last), so
// once the batch is done, or invisible no more, the next POP goes on from there; messages handed
// out again count one more delivery each (the reply's orderCountInfo; the client's
// reconsumeTimes).
//
// No checkpoint, no retry topic: a message not acknowledged comes back from its own queue, in
// order. Kept in memory only: after a restart or a failover the committed offsets say where each
// queue goes on, and the counts start again from 0.
//
// Bounded: one batch (<= 32 offsets) per queue a FIFO group popped. Threading: the node's loop.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "runtime/time.h"

namespace ferry::broker {

class PopOrderManager {
 public:
  struct Key {
    std::string topic;
    std::string group;
    std::int32_t queue_id = 0;
    auto operator<=>(const Key&) const = default;
  };

  // When a new POP of `key` with `attempt_id` must skip the queue at `now_ms`: until the returned
  // time (when the last unacknowledged message of the batch becomes visible); nullopt: it may read.
  std::optional<WallMs> blocked_until(const Key& key, const std::optional<std::string>& attempt_id, WallMs now_ms) const;
  // A batch was handed out: returns, per offset, how many times it was handed out before.
  std::map<std::int64_t, std::int32_t> handed_out(const Key& key, WallMs pop_time, std::int64_t invisible_time,
                                                  const std::vector<std::int64_t>& offsets,
                                                  const std::optional<std::string>& attempt_id);

  enum class AckOutcome : std::uint8_t {
    commit,   // commit `next` as the group's offset
    stale,    // the handle is of an earlier batch: nothing to do (SUCCESS)
    illegal,  // the offset is not in the current batch (MESSAGE_ILLEGAL)
  };
  struct Ack {
    AckOutcome outcome = AckOutcome::stale;
    std::int64_t next = 0;
  };
  // Acknowledges `offset` of the batch popped at `pop_time`. `committed` is the group's offset.
  // Without a batch (a restart), only the committed offset itself moves the offset (to + 1);
  // an ack of a later one is stale (its message comes again: at least once).
  Ack ack(const Key& key, WallMs pop_time, std::int64_t offset, std::int64_t committed);
  // CHANGE_MESSAGE_INVISIBLETIME of a FIFO handle: `offset` of the batch popped at `pop_time`
  // becomes visible at `visible_at`. False when it is not in that batch.
  bool change_invisible(const Key& key, WallMs pop_time, std::int64_t offset, WallMs visible_at);
  // Forgets every batch (a broker that stops being master).
  void clear() { batches_.clear(); }
  std::size_t size() const { return batches_.size(); }

 private:
  struct Batch {
    WallMs pop_time = 0;
    std::int64_t invisible_time = 0;
    std::vector<std::int64_t> offsets;             // ascending
    std::map<std::int64_t, bool> acked;            // offset -> acknowledged
    std::map<std::int64_t, WallMs> visible_at;     // per-offset overrides (changes)
    std::map<std::int64_t, std::int32_t> counts;   // offset -> deliveries before this one
    std::optional<std::string> attempt_id;
  };
  std::map<Key, Batch> batches_;
};

}  // namespace ferry::broker
