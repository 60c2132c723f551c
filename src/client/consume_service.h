// ConsumeService: the push consumer's listener calls, concurrent or orderly (RocketMQ's
// ConsumeMessageConcurrentlyService and ConsumeMessageOrderlyService), with send-back and the
// consumed offsets. One of the three jobs of a PushConsumer (push_consumer.h has the whole
// picture).
//
// Input: dispatch(pq, msgs), the messages the pull loop (pull_service.h) just pulled for a held
// queue. They are cached in the queue's ProcessQueue and become consume requests, taken in FIFO
// order by consume_threads worker coroutines (started by start()):
//  * Concurrent: requests of consume_message_batch_max_size messages. RECONSUME_LATER (or an
//    exception, or the messages after ctx.ack_index) → clustering: send-back with the context's
//    delay level (send_back.h: CONSUMER_SEND_MSG_BACK, else the inner producer's re-send); both
//    failed → consumed again here after local_retry_delay with reconsume_times + 1.
//    Broadcasting: dropped with a warning. Then the messages leave the cache and the queue's
//    offset becomes the smallest offset still cached (ProcessQueue::remove; increase only).
//  * Consume timeout (concurrent clustering, RocketMQ's cleanExpiredMsg): every consume_timeout
//    (15 min) each held queue's oldest cached messages whose listener call started more than
//    consume_timeout ago (up to 16 per queue) are sent back with delay level 3 and removed from
//    the cache, so the queue's offset moves on while the listener still runs. Its late result is
//    then ignored for the removed messages, except that RECONSUME_LATER sends them back once more
//    (at-least-once, as RocketMQ).
//  * Orderly: one request per queue at a time ("a turn"), messages in queue order, batches of
//    consume_message_batch_max_size, for at most orderly_consume_round_max (60 s) per turn.
//    Clustering: only while the queue's broker lock is held and confirmed within
//    lock_max_live_time (30 s), otherwise the turn asks the queue table for the lock
//    (Links::lock) and comes back later. SUCCESS commits the batch;
//    SUSPEND_CURRENT_QUEUE_A_MOMENT puts it back with reconsume_times + 1 and suspends the queue
//    (the context's time, else suspend_current_queue_time, 1 s), or, past max_reconsume_times
//    when set (clustering), sends it to the DLQ instead.
//
// A listener runs through Runtime::offload on data it owns (a shared call record), so a
// consumer destroyed while a listener runs on an offload thread leaves nothing dangling; its
// result is then dropped. A queue dropped meanwhile (given up) gets no offset from a late result:
// its new holder consumes again (at-least-once).
//
// Bounds: requests refer to cached messages only, and the pull loop's flow control bounds the
// cache per queue (pull_threshold_for_queue messages, plus one pull batch).
//
// Lifetime: built by PushConsumer::start() and kept until the consumer is destroyed; its tasks
// (workers, the consume-timeout loop, delayed re-enqueues) live in ctx.tasks. stop() makes the
// workers and loops end at their next look and drops the queued requests. Loop thread only.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <vector>

#include "client/consumer_listener.h"
#include "client/process_queue.h"
#include "client/push_context.h"
#include "client/send_back.h"
#include "client/trace_dispatcher.h"
#include "runtime/log_limiter.h"
#include "runtime/wait_queue.h"

namespace ferry::client {

class ConsumeService {
 public:
  // What the consume service asks of the queue table (push_rebalance.h).
  struct Links {
    // LOCK_BATCH_MQ for one queue: true when this client holds its broker lock now (the queue's
    // ProcessQueue is marked). Orderly clustering only.
    std::function<Task<bool>(MessageQueue)> lock;
    // The ProcessQueues held now, in queue order (the consume-timeout pass).
    std::function<std::vector<std::shared_ptr<ProcessQueue>>()> held;
  };

  // Exactly one listener is set; it decides the mode and must match ctx.orderly.
  ConsumeService(PushContext ctx, std::shared_ptr<const ConcurrentListener> concurrent,
                 std::shared_ptr<const OrderlyListener> orderly, Links links);
  ConsumeService(const ConsumeService&) = delete;
  ConsumeService& operator=(const ConsumeService&) = delete;

  // Spawns the consume_threads workers.
  void start_workers();
  // Spawns the consume-timeout loop (concurrent clustering only; otherwise nothing).
  void start_timeout_loop();
  // Workers and loops end at their next look; nothing more is enqueued. Queued requests stay
  // until clear().
  void stop();
  void clear() { pending_.clear(); }

  // Messages just pulled for `pq` (from its pull loop): caches them and queues their requests.
  void dispatch(const std::shared_ptr<ProcessQueue>& pq, std::vector<MessageExt> msgs);

 private:
  // A batch for the concurrent listener, or (msgs empty) a turn of an orderly queue.
  struct ConsumeRequest {
    std::shared_ptr<ProcessQueue> pq;
    std::vector<MessageExt> msgs;
  };

  // The spawned tasks below end at stop() (at their next look) or when ctx.tasks destroys them;
  // the delayed ones also when their queue is dropped meanwhile.
  static Task<void> worker(ConsumeService* self);
  static Task<void> enqueue_after(ConsumeService* self, ConsumeRequest r, Duration delay);
  static Task<void> lock_then_enqueue(ConsumeService* self, std::shared_ptr<ProcessQueue> pq, Duration delay);
  static Task<void> clean_expired_loop(ConsumeService* self);
  void enqueue(ConsumeRequest r);
  // Awaited by a worker: one request (a batch, or an orderly queue's turn).
  Task<void> consume_concurrently(ConsumeRequest r);
  Task<void> consume_orderly(std::shared_ptr<ProcessQueue> pq);
  Task<void> clean_expired(std::shared_ptr<ProcessQueue> pq);
  // What the listener sees: retried messages under their original topic, the start time set.
  std::vector<MessageExt> for_listener(std::vector<MessageExt> msgs);
  // max_reconsume_times, -1 resolved (16 concurrent, unlimited orderly).
  std::int32_t max_reconsume_times() const;
  SendBackRequest send_back_request(const MessageQueue& mq, std::int32_t delay_level) const;
  // Message trace (ctx.trace set): SubBefore for each traced message of a listener call (those
  // the dispatcher took), then their SubAfter.
  std::vector<TraceContext> trace_before(const std::vector<MessageExt>& msgs);
  void trace_after(const std::vector<TraceContext>& before, bool success, bool threw, Duration cost, std::size_t messages);

  const PushContext ctx_;
  const std::shared_ptr<const ConcurrentListener> concurrent_listener_;
  const std::shared_ptr<const OrderlyListener> orderly_listener_;
  const Links links_;
  std::deque<ConsumeRequest> pending_;  // bounded by flow control (above)
  WaitQueue work_;
  bool running_ = true;
  // A listener that keeps failing (or a broker that is away) repeats these for every message.
  LogLimiter send_back_log_;        // send-backs re-sent to the retry topic (send_back_with_fallback), by Errc
  LogLimiter send_back_error_log_;  // send-backs that failed both ways, by Errc
  LogLimiter broadcast_drop_log_;   // broadcast messages dropped after RECONSUME_LATER
  LogLimiter expired_log_;          // messages consumed for longer than consume_timeout
  LogLimiter expired_error_log_;    // and not sent back, by Errc
};

}  // namespace ferry::client
