// LitePullConsumer: the application polls batches of messages (RocketMQ's
// DefaultLitePullConsumer / DefaultLitePullConsumerImpl). Coroutine API; application threads use
// client_api/blocking_lite_pull_consumer.h.
//
//   LitePullConsumer c(instance, LitePullConsumerConfig{.group = "LG"});
//   FERRY_TRY(c.subscribe("T", "*"));            // or c.assign({mq0, mq1})
//   FERRY_TRY(c.start());
//   std::vector<MessageExt> batch = co_await c.poll(5s);
//   co_await c.commit();                         // or auto_commit (every 5 s)
//   Status s = co_await c.seek(mq, QueueOffset(0));
//   co_await c.shutdown();
//
// Queues: subscribe() lets the rebalance pick them (as the push consumer, without the %RETRY%
// topic); assign() fixes them (no rebalance). Each held queue has a pull loop (long polling,
// broker_suspend_max 20 s, pull_batch_size 10) that fills a cache of batches, bounded by
// pull_threshold_for_all messages in all and pull_threshold_for_queue per queue (beyond: the
// pull waits 50 ms). A queue starts at its stored offset, else per consume_from_where; until
// this consumer polls from it (or seeks it) it has no consumed offset, and neither commit() nor
// giving the queue up in a rebalance writes one (the start may be older than what another member
// committed meanwhile).
//
// poll() returns the oldest cached batch (messages of one queue, in offset order) or, after
// `timeout` with nothing cached, an empty vector. A polled batch counts as consumed: the
// queue's consumed offset becomes one past its last message. commit() writes every consumed
// offset into the offset store and persists it (UPDATE_CONSUMER_OFFSET / the local file);
// with auto_commit the ClientInstance's 5 s persist tick and poll() commit when
// auto_commit_interval has passed. seek() makes the next batch of a held queue start at
// `offset` (within the queue's [min, max]) at once: batches pulled before it are discarded, a
// long-polling pull in flight is abandoned (its reply is dropped), and its consumed offset
// becomes `offset`. seek_to_begin() / seek_to_end() seek to the queue's min /
// max offset (RocketMQ's seekToBegin / seekToEnd).
//
// pause() stops a held queue: its pull loop makes no new pull (it looks again every
// pull_delay_when_pause, 1 s, as RocketMQ) and poll() returns none of its batches, also none
// cached before the pause (they stay cached, in order, for after resume(); RocketMQ still hands
// out what was cached). resume() undoes it and wakes a waiting poll(). Queues not held are
// ignored; a queue the rebalance gives up and takes again comes back unpaused (RocketMQ).
//
// One poll() at a time (asserted). Loop thread only; the ClientInstance outlives the consumer.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "client/client_instance.h"
#include "client/consumer_config.h"
#include "client/consumer_handle.h"
#include "client/message_selector.h"
#include "client/offset_store.h"
#include "client/owned_tasks.h"
#include "client/pull_api.h"
#include "runtime/log_limiter.h"
#include "runtime/wake_signal.h"

namespace ferry::client {

class TraceDispatcher;

class LitePullConsumer final : public ConsumerHandle {
 public:
  LitePullConsumer(ClientInstance& instance, LitePullConsumerConfig config);
  ~LitePullConsumer() override;
  LitePullConsumer(const LitePullConsumer&) = delete;
  LitePullConsumer& operator=(const LitePullConsumer&) = delete;

  // Before start(); not mixed with assign(). `expression`: tags; a selector may be SQL92
  // (message_selector.h). Errors: invalid_argument.
  Status subscribe(const std::string& topic, const std::string& expression);
  Status subscribe(const std::string& topic, const MessageSelector& selector);
  // Holds exactly `mqs` (replacing a previous assignment; may be called after start()).
  // Errors: invalid_argument (mixed with subscribe(), empty).
  Status assign(std::vector<MessageQueue> mqs);

  // Errors: invalid_argument (nothing subscribed or assigned, bad or duplicate group), corrupt
  // (the local offset file).
  Status start();
  // Commits (auto_commit) or persists what was committed, unregisters the group, stops.
  Task<void> shutdown();

  Task<std::vector<MessageExt>> poll(Duration timeout);
  Task<void> commit();
  // Errors: invalid_argument (a queue not held, an offset outside [min, max]), the broker call
  // errors.
  Task<Status> seek(MessageQueue mq, QueueOffset offset);
  Task<Status> seek_to_begin(MessageQueue mq);
  Task<Status> seek_to_end(MessageQueue mq);
  // The offset the store holds for `mq` (asks the broker / reads the file); nullopt: none. Only
  // reads: what was polled or committed but not yet persisted stays to be persisted.
  Task<Result<std::optional<QueueOffset>>> committed(MessageQueue mq);

  void pause(const std::vector<MessageQueue>& mqs);
  void resume(const std::vector<MessageQueue>& mqs);
  bool is_paused(const MessageQueue& mq) const;

  std::vector<MessageQueue> assignment() const;
  const LitePullConsumerConfig& config() const { return config_; }
  std::size_t cached_messages() const { return cached_msgs_; }
  // Pulls answered OFFSET_ILLEGAL (PULL_OFFSET_MOVED): the queue's pull offset moved to where the
  // broker said (forward past expired messages, or back to a new master's shorter queue).
  std::uint64_t offsets_moved() const { return offsets_moved_; }
  // The message trace (enable_msg_trace, once started), else nullptr.
  TraceDispatcher* trace() { return trace_.get(); }
  // The queue of the batch the last poll() returned (a MessageExt does not name its broker);
  // nullopt before the first poll and after one that returned nothing.
  const std::optional<MessageQueue>& last_polled_queue() const { return last_polled_; }

  // ConsumerHandle
  remoting::body::ConsumerData consumer_data() const override;
  void on_subscribe_queues_changed(const std::string& topic, const std::vector<MessageQueue>& queues) override;
  void rebalance_soon() override;
  void persist_offsets_soon() override;

 private:
  struct QueueState {
    MessageQueue mq;
    bool dropped = false;
    bool paused = false;
    bool offset_known = false;
    QueueOffset pull_offset;
    std::optional<QueueOffset> consumed;  // one past the last polled message
    std::uint64_t generation = 0;         // bumped by seek(): older batches are stale
    std::uint64_t loop = 0;               // the pull loop that may run; older ones end
    std::size_t cached = 0;
  };
  struct Batch {
    std::shared_ptr<QueueState> q;
    std::uint64_t generation = 0;
    std::vector<MessageExt> msgs;
  };

  // Starts a pull loop for `q`; an older loop of `q` ends when it next looks (seek() does not
  // wait for its long-polling pull, as RocketMQ interrupts its pull task).
  void start_loop(const std::shared_ptr<QueueState>& q);
  static Task<void> pull_loop(LitePullConsumer* self, std::shared_ptr<QueueState> q, std::uint64_t loop);
  bool loop_live(const QueueState& q, std::uint64_t loop) const { return running_ && !q.dropped && q.loop == loop; }
  static Task<void> rebalance_task(LitePullConsumer* self);
  static Task<void> start_task(LitePullConsumer* self);
  static Task<void> commit_task(LitePullConsumer* self);
  Task<void> update_queues(std::string topic, std::vector<MessageQueue> allocated, bool all_topics);
  void take(const MessageQueue& mq);
  Task<void> give_up(std::shared_ptr<QueueState> q);
  MessageSelector selector_of_topic(const std::string& topic) const;
  void trace_pulled(const std::vector<MessageExt>& msgs);

  ClientInstance& ci_;
  Runtime& rt_;
  const LitePullConsumerConfig config_;
  PullAPI pull_api_;
  std::unique_ptr<OffsetStore> offsets_;
  std::map<std::string, remoting::body::SubscriptionData> subscriptions_;  // by topic
  bool assigned_mode_ = false;
  std::map<MessageQueue, std::shared_ptr<QueueState>> queues_;
  std::deque<Batch> cache_;  // bounded by the pull thresholds
  std::size_t cached_msgs_ = 0;
  std::uint64_t offsets_moved_ = 0;
  std::optional<MessageQueue> last_polled_;
  WakeSignal arrived_;
  MonoTime next_auto_commit_{};
  bool started_ = false;
  bool running_ = false;
  bool rebalancing_ = false;
  bool rebalance_again_ = false;
  bool committing_ = false;
  std::unique_ptr<TraceDispatcher> trace_;  // enable_msg_trace, from start()
  LogLimiter rebalance_log_;       // failed allocations, by Errc
  LogLimiter start_offset_log_;    // start offsets not found, by Errc
  LogLimiter pull_error_log_;      // failed pulls of all its queues, by Errc
  LogLimiter offset_illegal_log_;  // OFFSET_ILLEGAL answers
  OwnedTasks tasks_;  // last: destroyed first
};

}  // namespace ferry::client
