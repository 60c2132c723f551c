// RebalanceLockManager: queue locks of orderly consumers (RocketMQ's RebalanceLockManager).
//
// A lock is (group, queue) → clientId, valid for rebalance_lock_max_live_time (60 s) after it
// was last taken or renewed. try_lock_batch() grants a queue that is free, held by the same
// client (renewing it), or held by another client whose lock expired; it refuses a queue whose
// lock another client still holds. unlock_batch() releases only the caller's own locks.
//
// Hold-off (hold_off_for()): a broker that restarted on an existing store, or became its group's
// master, has forgotten (or never had) the locks its clients may still trust — a client trusts a
// confirmed lock for 30 s. For one lock lifetime it grants none, so two orderly consumers never
// hold one queue; orderly consumption of its queues pauses meanwhile (docs/properties.md).
//
// Bounded: at most queue_locks_max locks over all groups; when a new lock would pass it, expired
// locks are purged first, and if still full the queue is refused (logged).
// Threading: the node's loop. Time: the node's monotonic clock.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "broker/broker_config.h"
#include "common/message_queue.h"
#include "runtime/log_limiter.h"
#include "runtime/runtime.h"

namespace ferry::broker {

class RebalanceLockManager {
 public:
  RebalanceLockManager(Runtime& rt, const BrokerConfig& config) : rt_(rt), config_(config) {}

  // The queues of `mqs` now locked by `client_id`, sorted and unique.
  std::vector<MessageQueue> try_lock_batch(std::string_view group, const std::vector<MessageQueue>& mqs,
                                           std::string_view client_id);
  void unlock_batch(std::string_view group, const std::vector<MessageQueue>& mqs, std::string_view client_id);
  // Whether `client_id` holds a live lock on the queue.
  bool is_locked(std::string_view group, const MessageQueue& mq, std::string_view client_id) const;

  std::size_t lock_count() const { return count_; }
  // Grants no lock for `d` from now (see above); the locks held are dropped.
  void hold_off_for(Duration d);
  bool holding_off() const { return rt_.now() < hold_off_until_; }

 private:
  struct Entry {
    std::string client_id;
    MonoTime last_update{};
  };
  bool expired(const Entry& e, MonoTime now) const { return now - e.last_update > config_.rebalance_lock_max_live_time; }
  void purge_expired(MonoTime now);

  Runtime& rt_;
  const BrokerConfig& config_;
  std::map<std::string, std::map<MessageQueue, Entry>, std::less<>> table_;
  std::size_t count_ = 0;
  MonoTime hold_off_until_{};
  bool hold_off_logged_ = false;
  // Clients lock and unlock at will: one limiter per line.
  LogLimiter taken_log_;    // expired locks taken over
  LogLimiter refused_log_;  // locks held by another client
  LogLimiter cap_log_;      // locks refused for queue_locks_max
  LogLimiter unlock_log_;   // unlocks by a client that does not hold the lock
};

}  // namespace ferry::broker
