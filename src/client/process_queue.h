// ProcessQueue: a push consumer's cache of one queue it holds (RocketMQ's ProcessQueue): the
// messages pulled and not yet consumed, by queue offset, plus the queue's pull position and its
// orderly-consumption state.
//
// The committed offset of a queue is the smallest offset still cached (consumed messages leave
// the cache in any order), or one past the largest offset ever cached when the cache is empty
// (remove()). Orderly consumption caches the messages themselves (put()), moves them into a
// "consuming" set (take()) and either commits them (commit()) or puts them back (put_back()).
// Concurrent consumption caches only their offsets and sizes (track(): the consume requests hold
// the messages, so nothing is copied) and marks when a listener call started on them
// (mark_consume_started(), which keeps a reference to the call's messages), so that messages
// whose listener runs for longer than consume_timeout can be found (expired_first(), RocketMQ's
// cleanExpiredMsg).
//
// Lifetime: shared by the consumer's table, the queue's pull loop and its consume requests;
// `dropped` tells them the queue was given up (they stop and never commit for it). Loop thread
// only.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <vector>

#include "common/message.h"
#include "common/message_queue.h"
#include "runtime/time.h"

namespace ferry::client {

class ProcessQueue {
 public:
  ProcessQueue(MessageQueue mq, QueueOffset next_offset) : mq_(std::move(mq)), start_offset_(next_offset), next_offset_(next_offset) {}

  const MessageQueue& queue() const { return mq_; }
  // Where this consumer started reading the queue when it took it (the rebalance's consume-from
  // decision or the stored offset); never changes.
  QueueOffset start_offset() const { return start_offset_; }

  // ---- pulling ----------------------------------------------------------------------------
  QueueOffset next_offset() const { return next_offset_; }
  void set_next_offset(QueueOffset o) { next_offset_ = o; }
  // The broker id (0 the master, > 0 a slave) that served the last pull that found messages; -1
  // before the first. Monitoring: which of the group's brokers this queue is being read from.
  std::int64_t pulled_from() const { return pulled_from_; }
  void set_pulled_from(std::int64_t broker_id) { pulled_from_ = broker_id; }

  // Caches `msgs` (offsets not cached yet). Returns whether an orderly consume request should be
  // dispatched now (messages are cached and none is running; sets consuming).
  bool put(std::vector<MessageExt> msgs);
  // Concurrent consumption: caches the offsets and body sizes of `msgs` (offsets not cached yet),
  // not the messages, which the caller's consume requests keep.
  void track(const std::vector<MessageExt>& msgs);
  std::int64_t cached_count() const { return static_cast<std::int64_t>(msgs_.size() + consuming_.size()); }
  std::int64_t cached_body_bytes() const { return body_bytes_; }
  // The offset span of the cache (largest − smallest), 0 when empty (concurrent flow control).
  std::int64_t span() const;

  // ---- concurrent consumption -------------------------------------------------------------
  // Removes consumed (or sent back) messages. Returns the offset to commit: the smallest
  // offset still cached, else one past the largest offset ever cached; nullopt if nothing was
  // ever cached.
  std::optional<QueueOffset> remove(const std::vector<MessageExt>& msgs);
  // A listener call on `call_msgs` starts at `now` (the marks of messages still cached; a later
  // call on the same message, a local retry, marks it again). The queue keeps `call_msgs` alive
  // while it caches one of them (expired_first() reads it); remove() forgets the marks.
  void mark_consume_started(std::shared_ptr<const std::vector<MessageExt>> call_msgs, MonoTime now);
  // The cached message with the smallest offset, when its listener call started more than
  // `timeout` before `now` (a copy, as the listener call has it); nullopt otherwise, also when
  // that message never started.
  std::optional<MessageExt> expired_first(MonoTime now, Duration timeout) const;

  // ---- orderly consumption ----------------------------------------------------------------
  // Moves up to `n` of the lowest offsets into the consuming set and returns copies. Empty:
  // nothing cached, and consuming becomes false.
  std::vector<MessageExt> take(std::size_t n);
  // The consuming set was consumed: clears it; returns one past its largest offset.
  std::optional<QueueOffset> commit();
  // The consuming set goes back to the cache (consumed again later), with these copies (their
  // reconsume_times raised by the caller).
  void put_back(std::vector<MessageExt> msgs);
  bool consuming() const { return consuming_flag_; }

  // ---- state ------------------------------------------------------------------------------
  bool dropped() const { return dropped_; }
  void drop() { dropped_ = true; }
  // The broker lock of an orderly clustering consumer and when it was last confirmed.
  bool locked() const { return locked_; }
  void set_locked(bool locked, MonoTime now) {
    locked_ = locked;
    if (locked) last_lock_time_ = now;
  }
  bool lock_expired(MonoTime now, Duration max_live) const { return now - last_lock_time_ > max_live; }
  // When the broker last confirmed the lock (set_locked(true, t)); epoch before the first time.
  MonoTime last_lock_time() const { return last_lock_time_; }
  bool previously_locked() const { return previously_locked_; }
  void set_previously_locked() { previously_locked_ = true; }
  // When a pull of this queue last found messages and a listener call on it last ended (monotonic;
  // epoch before the first). GET_CONSUMER_RUNNING_INFO reports them.
  MonoTime last_pull_time{};
  MonoTime last_consume_time{};
  // The cached offsets' smallest and largest, nullopt when nothing is cached.
  std::optional<std::pair<QueueOffset, QueueOffset>> cached_range() const;
  // A listener is running for this queue (a removal waits for it: the orderly broker lock must
  // not be released while a message of the queue is being consumed).
  int in_listener = 0;

 private:
  // One cached offset.
  struct Slot {
    std::int64_t body_bytes = 0;
    std::optional<MessageExt> msg;  // put(): the message itself; track(): absent
    // Concurrent: the listener call on this message (its messages and this one's index), and
    // when it started; empty before the first call.
    std::shared_ptr<const std::vector<MessageExt>> call;
    std::size_t index = 0;
    std::optional<MonoTime> started;
  };
  void account(const MessageExt& m, int sign) {
    body_bytes_ += sign * static_cast<std::int64_t>(m.body.size());
  }
  // Whether offset `o` is cached (in either set).
  bool known(QueueOffset o) const;
  // Caches `m`'s offset and body size (an offset not known yet); the caller may keep the message
  // in the returned slot.
  Slot& cache(const MessageExt& m);

  const MessageQueue mq_;
  const QueueOffset start_offset_;
  QueueOffset next_offset_;
  std::int64_t pulled_from_ = -1;
  std::map<QueueOffset, Slot> msgs_;              // cached, not being consumed orderly
  std::map<QueueOffset, MessageExt> consuming_;   // orderly: taken, not yet committed
  std::optional<QueueOffset> max_cached_;         // largest offset ever cached
  std::int64_t body_bytes_ = 0;
  bool consuming_flag_ = false;
  bool dropped_ = false;
  bool locked_ = false;
  bool previously_locked_ = false;
  MonoTime last_lock_time_{};
};

}  // namespace ferry::client
