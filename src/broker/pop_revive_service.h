// PopReviveService: the checkpoints of POP consumption, and the return of messages nobody
// acknowledged (RocketMQ 5's PopReviveService, on a revive log of Ferry's own: pop_checkpoint.h).
//
// A POP of one queue opens a checkpoint: the queue offsets it handed out, the pop time and the
// invisible time. open() stores its "ck" record in the revive log (queue revive_qid of
// rmq_sys_REVIVE_LOG_{cluster}) and keeps it in memory. Acknowledgements (ack()) clear its
// messages and store an "ack" record; a checkpoint whose messages are all acknowledged closes.
// Once a checkpoint's revive time (pop time + invisible time, on the broker's wall clock) has
// passed, the revive loop (every reviveInterval) re-puts each message it still holds:
//   * to the group's POP retry topic (the checkpoint's own topic when it is one already;
//     "%RETRY%{group}_{topic}", or "+" with enableRetryTopicV2; 1 queue, created on demand) with
//     reconsumeTimes + 1, every property kept, RETRY_TOPIC set to the topic it was first popped
//     from and 1ST_POP_TIME to the pop time when it had none;
//   * to the group's dead-letter topic "%DLQ%{group}" instead when its reconsumeTimes already
//     reached the group's retryMaxTimes (16). RocketMQ 5.3's broker retries forever and leaves the
//     dead-lettering to its gRPC proxy and clients; Ferry's broker does it so that every POP
//     client gets it.
// and then stores a "ferry_revived" record that closes the checkpoint. A re-put that fails (disk
// full) leaves the checkpoint open and is tried again on the next round; messages of it already
// re-put are not re-put again by this broker run.
//
// Why not RocketMQ's timer messages: RocketMQ stores each "ck" and "ack" as a timer message due at
// the revive time, so the revive service reads them only when due. Ferry writes them at once and
// keeps open checkpoints in memory, ordered by revive time: a checkpoint costs one record and
// about 200 bytes while open, a revive needs no timer wheel (POP works with timerWheelEnable
// false), and an ack that comes quickly closes it with nothing more to do. Bounded:
// popCkMaxBufferSize checkpoints open at once; past that open() refuses (busy) and POP hands out
// nothing until some close.
//
// Restarts and failover: per revive queue, the progress offset (committed as the consumer offset
// of CID_RMQ_SYS_REVIVE_GROUP on the revive topic, persisted with the other offsets and copied to
// slaves by SlaveSync) is the revive-log offset of the oldest checkpoint still open there, or the
// queue's end. load() replays each queue from it: "ck" opens, "ack" clears, "ferry_revived"
// closes. So a kill, a power loss (with what SYNC_FLUSH kept) or a promoted slave finds every
// checkpoint a POP had acknowledged to its client, with the acks stored after it. At least once:
// a checkpoint revived just before a crash, whose "ferry_revived" record was lost, is revived
// again; an ack lost the same way lets its message come back. The consumer offset a POP moved is
// persisted every flushConsumerOffsetInterval: after a crash, messages popped in the last
// interval may be handed out once more (their checkpoints are revived too).
//
// Active on a master only (set_active): a slave's revive log follows its master's; promoted, it
// replays it. Threading: the node's loop.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "broker/broker_config.h"
#include "broker/consumer_offset_manager.h"
#include "broker/pop_checkpoint.h"
#include "broker/subscription_group_manager.h"
#include "broker/topic_config_manager.h"
#include "common/message.h"
#include "runtime/log_limiter.h"
#include "runtime/wake_signal.h"
#include "store/message_store.h"

namespace ferry::broker {

class PopReviveService {
 public:
  PopReviveService(Runtime& rt, const BrokerConfig& config, store::MessageStore& store, TopicConfigManager& topics,
                   ConsumerOffsetManager& offsets, SubscriptionGroupManager& groups);
  PopReviveService(const PopReviveService&) = delete;
  PopReviveService& operator=(const PopReviveService&) = delete;

  const std::string& topic() const { return topic_; }

  // Spawns the revive loop; `active` as set_active().
  void start(bool active);
  // A master revives; a slave does not. Becoming active replays the revive log (see above);
  // becoming inactive forgets every open checkpoint.
  void set_active(bool active);
  bool active() const { return active_; }
  // Stops the loop and commits the progress offsets (the Broker persists offsets after).
  void stop();

  // Opens `ck` (revive_qid chosen by the caller, < reviveQueueNum): stores its record, then keeps
  // it. Errors: busy (popCkMaxBufferSize checkpoints open; nothing stored), invalid_argument (not
  // active), and a refused put (its detail; nothing kept).
  Status open(PopCheckpoint ck);
  // Acknowledges `offsets` (queue offsets) of the checkpoint `key`: stores an "ack" record and
  // clears them; closes it when none is left. Returns how many were newly acknowledged: 0 when the
  // checkpoint is not open (closed, revived already, never known) or holds none of them (nothing
  // stored). Errors: a refused put (nothing cleared).
  Result<std::int32_t> ack(const PopCheckpointKey& key, std::span<const std::int64_t> offsets);
  // True when open() would find room.
  bool has_room() const { return open_.size() < config_.pop_ck_max_buffer_size; }

  // Revives every open checkpoint due at `now_ms` (the loop calls it; tests may).
  void revive_due(WallMs now_ms);
  // Re-reads the revive log (see above). Called by set_active(true).
  Status replay();

  // How long the loop sleeps with nothing open and nothing to commit (open() wakes it).
  static constexpr Duration kIdleWait = std::chrono::hours(1);

  // Called for each message moved to a group's DLQ (its group, and the topic it was consumed from).
  void set_dlq_observer(std::function<void(std::string_view group, std::string_view topic)> fn) { on_dlq_ = std::move(fn); }

  // For operators and tests.
  std::size_t open_count() const { return open_.size(); }
  std::uint64_t revived_messages() const { return revived_messages_; }
  std::uint64_t dead_lettered() const { return dead_lettered_; }
  std::uint64_t replayed_records() const { return replayed_records_; }
  const PopCheckpoint* find(const PopCheckpointKey& key) const;

 private:
  struct Open {
    PopCheckpoint ck;
    std::int64_t log_offset = 0;  // its record's offset in revive queue ck.revive_qid
  };
  static Task<void> run_loop(PopReviveService* self);
  // Stores one revive-log record; its queue offset, or the put's failure.
  Result<std::int64_t> put_record(std::int32_t revive_qid, std::string_view tag, const std::string& body);
  void keep(PopCheckpoint ck, std::int64_t log_offset);
  void close(const PopCheckpointKey& key);
  // Re-puts what `o` holds; true when the checkpoint may close.
  bool revive(Open& o);
  enum class Reput : std::uint8_t { done, gone, failed };
  Reput reput(const PopCheckpoint& ck, std::int64_t queue_offset);
  void commit_progress();
  void apply_replayed(std::int32_t revive_qid, std::int64_t log_offset, const MessageExt& record);

  Runtime& rt_;
  const BrokerConfig& config_;
  store::MessageStore& store_;
  TopicConfigManager& topics_;
  ConsumerOffsetManager& offsets_;
  SubscriptionGroupManager& groups_;
  const std::string topic_;
  std::map<PopCheckpointKey, Open> open_;
  std::set<std::pair<std::int64_t, PopCheckpointKey>> due_;     // (revive time, key)
  std::vector<std::set<std::int64_t>> open_log_offsets_;         // per revive queue
  std::vector<std::optional<std::int64_t>> committed_;           // per revive queue
  WakeSignal wake_;
  bool dirty_ = false;  // a checkpoint opened or closed since the progress was last committed
  bool started_ = false;
  bool stopped_ = false;
  bool active_ = false;
  std::uint64_t revived_messages_ = 0;
  std::function<void(std::string_view, std::string_view)> on_dlq_;
  std::uint64_t dead_lettered_ = 0;
  std::uint64_t replayed_records_ = 0;
  LogLimiter bad_record_log_;      // checkpoints, acks and messages skipped as unusable (1..7: which line)
  LogLimiter reput_error_log_;     // messages not revived yet (retried each round): by PutStatus, -1 not writable
  LogLimiter mark_error_log_;      // revived marks not stored, by Errc
  LogLimiter progress_error_log_;  // progress not committed, by Errc
};

}  // namespace ferry::broker
