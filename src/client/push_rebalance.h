// PushRebalance: the queues a push consumer holds (RocketMQ's RebalancePushImpl): rebalance
// rounds, the queue table, and (orderly clustering) the broker locks of the held queues. One of
// the three jobs of a PushConsumer (push_consumer.h has the whole picture); rebalance.h decides,
// this class applies the decision.
//
//  * Rounds: rebalance_soon() (every 20 s from the ClientInstance, at once on
//    NOTIFY_CONSUMER_IDS_CHANGED, at start, when a subscribed topic's queues change) or
//    rebalance(). A round goes over the subscribed topics in order; a topic whose allocation
//    fails (rebalance.h: allocated_queues) is logged and left as it is until the next round.
//    Rounds coalesce: a request while one runs makes it run once more.
//  * Giving a queue up: its ProcessQueue is dropped (its pull loop and consume requests stop),
//    its offset persisted and forgotten, and (orderly clustering) its broker lock released
//    (UNLOCK_BATCH_MQ). An orderly queue whose listener is running keeps its lock and its place
//    in the table until a later round.
//  * Taking a queue: (orderly clustering) LOCK_BATCH_MQ first — a queue locked by another client
//    is not taken this round; the stored offset is forgotten (removeDirtyOffset), the start
//    offset computed (rebalance.h: start_offset; a failure skips the queue this round), a
//    ProcessQueue made and its pull loop started (PullService::start).
//  * Locks (orderly clustering): lock_all() renews the lock of every held queue, per broker,
//    first 1 s after start() and then every lock_renew_interval; a queue whose lock was refused
//    is marked unlocked (its pull loop and consumption wait). lock_one() serves the consume
//    service when a queue's lock is missing or expired.
//
// Bounds: the table holds at most the queues allocated to this client.
//
// Lifetime: built by PushConsumer::start() and kept until the consumer is destroyed; `pull`
// outlives it; its tasks (rounds, the lock loop, pull loops through `pull`) live in ctx.tasks.
// After stop() no round starts, a round in flight takes no new queue, and the lock loop ends at
// its next look. Loop thread only.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "client/process_queue.h"
#include "client/pull_service.h"
#include "client/push_context.h"
#include "runtime/log_limiter.h"

namespace ferry::client {

class PushRebalance {
 public:
  // `topics`: every subscribed topic, sorted. `consume_timestamp_ms`: the start point of
  // CONSUME_FROM_TIMESTAMP.
  PushRebalance(PushContext ctx, std::vector<std::string> topics, WallMs consume_timestamp_ms, PullService& pull);
  PushRebalance(const PushRebalance&) = delete;
  PushRebalance& operator=(const PushRebalance&) = delete;

  // Spawns the lock renewal loop (orderly clustering only; otherwise nothing).
  void start();
  void stop() { running_ = false; }

  // A round soon, in ctx.tasks (coalesced with a running one). Nothing after stop().
  void rebalance_soon();
  // One round now (coalesced with a running one: then it returns at once).
  Task<void> rebalance();

  // LOCK_BATCH_MQ for `mq`: true when this client holds its lock now; marks the held queue.
  // A failed call counts as not locked.
  Task<bool> lock_one(MessageQueue mq);
  // One lock renewal round over every held queue.
  Task<void> lock_all();

  // Forgets `pq` when the table still holds that very ProcessQueue (a queue dropped after
  // OFFSET_ILLEGAL: the next round takes it up again).
  void forget(const std::shared_ptr<ProcessQueue>& pq);
  // At shutdown, after stop(): drops every held queue, persists the offsets (persist_final) and (orderly
  // clustering) releases the broker locks. The table keeps the queues until clear().
  Task<void> release_all();
  void clear() { queues_.clear(); }

  // RESET_CONSUMER_CLIENT_OFFSET: every held queue of `topic` named in `offsets` restarts there
  // at once — its ProcessQueue is dropped (its pull loop and consume requests stop and never
  // commit), a new one takes its place in the table from the new offset (orderly clustering: with
  // the old one's lock state), the in-memory offset is set (also backwards) and its pull loop
  // started; then the new offsets are persisted (in ctx.tasks). Queues not held are left alone (their
  // holders get the same request). RocketMQ suspends the consumer and waits 10 s for listener
  // calls in flight; Ferry does not wait, as a dropped queue's late results are ignored — but an
  // orderly listener already running on the old cache may overlap the first call on the new one.
  // Returns how many queues restarted. Nothing after stop().
  std::size_t reset_offsets(const std::string& topic, const std::map<MessageQueue, QueueOffset>& offsets);

  // The queues held now (sorted), their ProcessQueues (in queue order), one of them (nullptr
  // when not held).
  std::vector<MessageQueue> held_queues() const;
  std::vector<std::shared_ptr<ProcessQueue>> held() const;
  std::shared_ptr<const ProcessQueue> process_queue(const MessageQueue& mq) const;

 private:
  // Ends when no new request came during its round, or when ctx.tasks destroys it.
  static Task<void> rebalance_task(PushRebalance* self);
  // Ends at stop() (at its next look) or when ctx.tasks destroys it.
  static Task<void> lock_loop(PushRebalance* self);
  Task<void> rebalance_round();
  Task<void> update_queue_table(std::string topic, std::vector<MessageQueue> allocated);
  // false: the queue stays (an orderly listener runs on it).
  Task<bool> remove_queue(std::shared_ptr<ProcessQueue> pq);
  // Persists the offsets of `mqs` (after a reset).
  static Task<void> persist_queues(PushRebalance* self, std::vector<MessageQueue> mqs);

  const PushContext ctx_;
  const std::vector<std::string> topics_;
  const WallMs consume_timestamp_ms_;
  PullService& pull_;
  std::map<MessageQueue, std::shared_ptr<ProcessQueue>> queues_;
  bool running_ = true;
  bool rebalancing_ = false;
  bool rebalance_again_ = false;
  // Each rebalance (and lock) round repeats these while their cause lasts.
  LogLimiter allocate_error_log_;    // allocations that failed, by Errc
  LogLimiter locked_elsewhere_log_;  // queues not taken: locked by another client
  LogLimiter start_offset_log_;      // queues not taken: no start offset, by Errc
  LogLimiter lock_error_log_;        // lock calls that failed, by Errc
};

}  // namespace ferry::client
