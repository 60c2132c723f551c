// PushConsumer: messages delivered to a listener (RocketMQ's DefaultMQPushConsumer /
// DefaultMQPushConsumerImpl). Coroutine API for component code and simulation; application
// threads use client_api/blocking_push_consumer.h.
//
//   PushConsumer c(instance, PushConsumerConfig{.group = "CG"});
//   FERRY_TRY(c.subscribe("T", "TagA || TagB"));
//   c.set_listener([](const std::vector<MessageExt>& msgs, ConsumeConcurrentlyContext& ctx) {
//     return ConsumeConcurrentlyStatus::CONSUME_SUCCESS; });
//   FERRY_TRY(c.start());          // registers the group, starts the instance, rebalances soon
//   ...
//   co_await c.shutdown();         // persists offsets, unlocks (orderly), unregisters the group
//
// How it works (RocketMQ 4.9's design, on one loop):
//  * Rebalance (rebalance_soon(): every 20 s from the ClientInstance, at once on
//    NOTIFY_CONSUMER_IDS_CHANGED, at start and when a subscribed topic's queues change):
//    rebalance.h decides which queues this client holds; new queues get a ProcessQueue, a start
//    offset (rebalance.h: start_offset) and a pull loop; given-up queues are dropped, their offset
//    persisted and forgotten (and, orderly, their broker lock released). Clustering consumers
//    also subscribe %RETRY%{group} with "*".
//  * Pull loop per queue: PULL_MESSAGE with long polling (broker_suspend_max 15 s, call timeout
//    30 s), pull_batch_size 32, the in-memory offset piggy-backed (commitOffset flag,
//    clustering). Flow control: more than pull_threshold_for_queue messages or
//    pull_threshold_size_for_queue_bytes cached, or (concurrent) an offset span over
//    consume_concurrently_max_span → the next pull waits 50 ms. Errors → 3 s. OFFSET_ILLEGAL →
//    the queue is dropped, its offset set to the broker's next offset after 10 s and persisted;
//    the next rebalance takes it up again.
//  * Concurrent consumption: batches of consume_message_batch_max_size go to at most
//    consume_threads listener calls at once. RECONSUME_LATER (or an exception) → clustering:
//    CONSUMER_SEND_MSG_BACK with the context's delay level (the broker stores a retry copy on
//    %RETRY%{group} after the delay, or, past max_reconsume_times, a copy on %DLQ%{group});
//    a failed send-back → the instance's inner producer re-sends it to %RETRY%{group}
//    (send_back.h); both failed → consumed again here after local_retry_delay with
//    reconsume_times + 1. Broadcasting: dropped with a warning. The committed offset of a queue
//    is the smallest offset still cached (ProcessQueue::remove).
//  * Consume timeout (clustering, concurrent): every consume_timeout (15 min) each held queue's
//    oldest cached messages whose listener call started more than consume_timeout ago (up to 16
//    per queue) are sent back with delay level 3 and removed from the cache, so the queue's
//    offset moves on while the listener still runs (RocketMQ's cleanExpiredMsg). Its late
//    result is then ignored for the removed messages, except that RECONSUME_LATER sends them
//    back once more (at-least-once, as RocketMQ).
//  * Orderly consumption: one listener call per queue at a time, messages in queue order.
//    Clustering: a queue is consumed only while its broker lock (LOCK_BATCH_MQ, renewed every
//    lock_renew_interval 20 s) is held and confirmed within lock_max_live_time (30 s).
//    SUSPEND_CURRENT_QUEUE_A_MOMENT → the batch is consumed again after
//    suspend_current_queue_time (1 s), reconsume_times + 1 (to the DLQ after
//    max_reconsume_times when set).
//  * Offsets: RemoteOffsetStore (clustering) or LocalOffsetStore (broadcasting), persisted every
//    5 s (persist_offsets_soon() from the ClientInstance), on rebalance removal and at shutdown.
//  * Tags: the broker filters by tag hash; PullAPI re-checks the exact tag, so a listener never
//    sees a hash collision.
//
// Delivery is at-least-once: a crash re-delivers what was consumed after the last persisted
// offset (at most ~5 s of consumption).
//
// Lifetime: loop thread only. The ClientInstance must outlive the consumer; destroying the
// consumer (without shutdown(): a crash) forgets it at the instance and destroys its loops and
// in-flight work (a listener already running on an offload
// thread finishes on its own data and its result is dropped).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "client/client_instance.h"
#include "client/consumer_calls.h"
#include "client/consumer_config.h"
#include "client/consumer_handle.h"
#include "client/consumer_listener.h"
#include "client/offset_store.h"
#include "client/owned_tasks.h"
#include "client/process_queue.h"
#include "client/pull_api.h"
#include "common/tag_filter.h"
#include "runtime/wait_queue.h"

namespace ferry::client {

class PushConsumer final : public ConsumerHandle {
 public:
  PushConsumer(ClientInstance& instance, PushConsumerConfig config);
  ~PushConsumer() override;
  PushConsumer(const PushConsumer&) = delete;
  PushConsumer& operator=(const PushConsumer&) = delete;

  // Before start(). Errors: invalid_argument (a bad topic or expression; after start()).
  Status subscribe(const std::string& topic, const std::string& expression);
  // Exactly one listener, before start().
  void set_listener(ConcurrentListener listener);
  void set_listener(OrderlyListener listener);

  // Loads offsets (broadcasting: the local file), registers the group with the instance, starts
  // it, and schedules route updates, a heartbeat and a rebalance. Errors: invalid_argument (no
  // subscription, no listener, bad or duplicate group), corrupt (the local offset file).
  Status start();
  // Drops every queue, persists offsets, releases orderly locks, unregisters the group
  // (UNREGISTER_CLIENT) and destroys the consumer's loops. Idempotent.
  Task<void> shutdown();

  // ---- ConsumerHandle (called by the ClientInstance on the loop) --------------------------
  remoting::body::ConsumerData consumer_data() const override;
  void on_subscribe_queues_changed(const std::string& topic, const std::vector<MessageQueue>& queues) override;
  void rebalance_soon() override;
  void persist_offsets_soon() override;

  // One rebalance round now (coalesced with a running one), one persist round, one lock round.
  Task<void> rebalance();
  Task<void> persist_offsets();
  Task<void> lock_all();

  // ---- introspection ----------------------------------------------------------------------
  const PushConsumerConfig& config() const { return config_; }
  bool orderly() const { return orderly_listener_ != nullptr; }
  bool clustering() const { return config_.message_model == MessageModel::CLUSTERING; }
  // The queues held now (sorted).
  std::vector<MessageQueue> held_queues() const;
  std::shared_ptr<const ProcessQueue> process_queue(const MessageQueue& mq) const;
  OffsetStore& offsets() { return *offsets_; }
  struct Stats {
    std::uint64_t rebalances = 0;
    std::uint64_t pulls = 0;
    std::uint64_t pulled_messages = 0;
    std::uint64_t flow_controlled = 0;
    std::uint64_t listener_calls = 0;
    std::uint64_t reconsume_later = 0;
    std::uint64_t sent_back = 0;              // CONSUMER_SEND_MSG_BACK accepted
    std::uint64_t resent_to_retry_topic = 0;  // send-back failed; the inner producer re-sent it
    std::uint64_t send_back_failed = 0;       // both failed: consumed again locally
    std::uint64_t expired = 0;                // consume_timeout passed: sent back, removed
    std::uint64_t lock_rounds = 0;
  };
  const Stats& stats() const { return stats_; }

 private:
  struct Subscription {
    TagSubscription filter;
    remoting::body::SubscriptionData data;
  };
  // A batch for the concurrent listener, or (msgs empty) a turn of an orderly queue.
  struct ConsumeRequest {
    std::shared_ptr<ProcessQueue> pq;
    std::vector<MessageExt> msgs;
  };

  // push_consumer.cc: rebalance and the queue table
  static Task<void> start_task(PushConsumer* self);
  static Task<void> rebalance_task(PushConsumer* self);
  static Task<void> persist_task(PushConsumer* self);
  static Task<void> lock_loop(PushConsumer* self);
  Task<void> rebalance_round();
  Task<void> update_queue_table(std::string topic, std::vector<MessageQueue> allocated);
  Task<bool> remove_queue(std::shared_ptr<ProcessQueue> pq);
  Task<bool> lock_one(MessageQueue mq);
  void erase_if_same(const std::shared_ptr<ProcessQueue>& pq);

  // push_pull_loop.cc
  static Task<void> pull_loop(PushConsumer* self, std::shared_ptr<ProcessQueue> pq);
  void dispatch(const std::shared_ptr<ProcessQueue>& pq, std::vector<MessageExt> msgs);

  // consume_service.cc: the listener workers and both consumption modes
  static Task<void> worker(PushConsumer* self);
  static Task<void> enqueue_after(PushConsumer* self, ConsumeRequest r, Duration delay);
  static Task<void> lock_then_enqueue(PushConsumer* self, std::shared_ptr<ProcessQueue> pq, Duration delay);
  void enqueue(ConsumeRequest r);
  Task<void> consume_concurrently(ConsumeRequest r);
  Task<void> consume_orderly(std::shared_ptr<ProcessQueue> pq);
  std::vector<MessageExt> for_listener(std::vector<MessageExt> msgs);
  static Task<void> clean_expired_loop(PushConsumer* self);
  Task<void> clean_expired(std::shared_ptr<ProcessQueue> pq);
  // max_reconsume_times, -1 resolved (16 concurrent, unlimited orderly).
  std::int32_t max_reconsume_times() const;
  SendBackRequest send_back_request(const MessageQueue& mq, std::int32_t delay_level) const;

  ClientInstance& ci_;
  Runtime& rt_;
  const PushConsumerConfig config_;
  PullAPI pull_api_;
  std::unique_ptr<OffsetStore> offsets_;
  std::map<std::string, Subscription> subscriptions_;  // by topic
  std::shared_ptr<const ConcurrentListener> concurrent_listener_;
  std::shared_ptr<const OrderlyListener> orderly_listener_;
  std::map<MessageQueue, std::shared_ptr<ProcessQueue>> queues_;
  // Bounded by flow control: at most pull_threshold_for_queue (+ one pull batch) messages per
  // held queue are cached, and every request refers to cached messages.
  std::deque<ConsumeRequest> pending_;
  WaitQueue work_;
  WallMs consume_timestamp_ms_ = 0;
  bool started_ = false;
  bool running_ = false;
  bool rebalancing_ = false;
  bool rebalance_again_ = false;
  bool persisting_ = false;
  Stats stats_;
  OwnedTasks tasks_;  // last: destroyed first
};

}  // namespace ferry::client
