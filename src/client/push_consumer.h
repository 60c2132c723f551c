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
// How it works (RocketMQ 4.9's design, on one loop): start() builds three jobs, each in its
// own class with a narrow interface, and this class is the façade that owns and wires them:
//  * PushRebalance (push_rebalance.h) — which queues this client holds: rebalance rounds
//    (rebalance_soon(): every 20 s from the ClientInstance, at once on
//    NOTIFY_CONSUMER_IDS_CHANGED, at start and when a subscribed topic's queues change), the
//    queue table of ProcessQueues (process_queue.h), and the orderly broker locks. Clustering
//    consumers also subscribe %RETRY%{group} with "*".
//  * PullService (pull_service.h) — the pull loop of each held queue: long polling, flow
//    control, OFFSET_ILLEGAL; it hands pulled messages to the consume service and tells the
//    queue table to forget a queue dropped after OFFSET_ILLEGAL.
//  * ConsumeService (consume_service.h) — the listener calls, concurrent or orderly, send-back
//    (send_back.h), the consume timeout, and the consumed offsets; it asks the queue table for a
//    queue's lock and for the held queues.
// What all three share (the instance, config, offset store, task set, counters) is a
// PushContext (push_context.h).
//  * Offsets: RemoteOffsetStore (clustering) or LocalOffsetStore (broadcasting), persisted every
//    5 s (persist_offsets_soon() from the ClientInstance), on rebalance removal and at shutdown
//    (confirmed: OffsetStore::persist_final, so a graceful restart re-delivers nothing).
//  * Tags: the broker filters by tag hash; PullAPI re-checks the exact tag, so a listener never
//    sees a hash collision.
//
// Delivery is at-least-once: a crash re-delivers what was consumed after the last persisted
// offset (at most ~5 s of consumption).
//
// With enable_msg_trace each listener call leaves SubBefore and SubAfter trace records for its
// messages (trace_dispatcher.h; RocketMQ's ConsumeMessageTraceHookImpl); trace() is the dispatcher.
//
// Lifetime: loop thread only. The ClientInstance must outlive the consumer; destroying the
// consumer (without shutdown(): a crash) forgets it at the instance and destroys its loops and
// in-flight work (a listener already running on an offload
// thread finishes on its own data and its result is dropped).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "client/client_instance.h"
#include "client/consume_rates.h"
#include "client/consume_service.h"
#include "client/consumer_config.h"
#include "client/consumer_handle.h"
#include "client/consumer_listener.h"
#include "client/offset_store.h"
#include "client/owned_tasks.h"
#include "client/process_queue.h"
#include "client/pull_service.h"
#include "client/push_context.h"
#include "client/push_rebalance.h"
#include "client/message_selector.h"
#include "common/tag_filter.h"

namespace ferry::client {

class PushConsumer final : public ConsumerHandle {
 public:
  PushConsumer(ClientInstance& instance, PushConsumerConfig config);
  ~PushConsumer() override;
  PushConsumer(const PushConsumer&) = delete;
  PushConsumer& operator=(const PushConsumer&) = delete;

  // Before start(). `expression`: tags ("*", "TagA || TagB"); a selector may be SQL92
  // (message_selector.h). Errors: invalid_argument (a bad topic or expression, with the SQL92
  // line and column; after start()).
  Status subscribe(const std::string& topic, const std::string& expression);
  Status subscribe(const std::string& topic, const MessageSelector& selector);
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
  // Broker-to-client requests (consumer_handle.h; docs/client.md): 220 restarts the held queues
  // of the topic at the given offsets (PushRebalance::reset_offsets), 221 answers the in-memory
  // offsets of the topic's queues, 307 the subscriptions, held queues, offsets, rates and
  // configuration, 309 calls the listener once (consume_directly.h).
  void reset_offsets(const std::string& topic, const std::map<MessageQueue, QueueOffset>& offsets) override;
  std::map<MessageQueue, QueueOffset> offsets_of(const std::string& topic) const override;
  std::optional<remoting::body::ConsumerRunningInfo> running_info() const override;
  Task<std::optional<remoting::body::ConsumeMessageDirectlyResult>> consume_directly(MessageExt msg,
                                                                                    std::string broker_name) override;

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
  using Stats = PushConsumerStats;
  const Stats& stats() const { return stats_; }
  // The message trace (enable_msg_trace, once started), else nullptr.
  TraceDispatcher* trace() { return trace_.get(); }

 private:
  struct Subscription {
    remoting::body::SubscriptionData data;
  };

  // start(): the three jobs, wired (see the top of this file).
  void build_jobs(WallMs consume_timestamp_ms);
  // Route updates of the subscriptions, a heartbeat, then a rebalance (RocketMQ's start).
  static Task<void> start_task(PushConsumer* self);
  static Task<void> persist_task(PushConsumer* self);

  ClientInstance& ci_;
  Runtime& rt_;
  const PushConsumerConfig config_;
  std::unique_ptr<OffsetStore> offsets_;
  std::map<std::string, Subscription> subscriptions_;  // by topic
  std::shared_ptr<const ConcurrentListener> concurrent_listener_;
  std::shared_ptr<const OrderlyListener> orderly_listener_;
  bool started_ = false;
  bool running_ = false;
  bool persisting_ = false;
  WallMs start_timestamp_ms_ = 0;  // when start() ran (PROP_CONSUMER_START_TIMESTAMP)
  Stats stats_;
  std::unique_ptr<ConsumeRates> rates_;  // built by start(), before the jobs that record into it
  std::unique_ptr<TraceDispatcher> trace_;  // enable_msg_trace: built by start(), before the jobs
  // Built by start(), in this order (each refers to the one before); destroyed after tasks_.
  std::unique_ptr<ConsumeService> consume_;
  std::unique_ptr<PullService> pull_;
  std::unique_ptr<PushRebalance> rebalance_;
  OwnedTasks tasks_;  // last: destroyed first
};

}  // namespace ferry::client
