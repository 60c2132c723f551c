// PullService: the push consumer's pull loop of each held queue (RocketMQ's PullMessageService
// and DefaultMQPushConsumerImpl.pullMessage with its PullCallback). One of the three jobs of a
// PushConsumer (push_consumer.h has the whole picture).
//
// start(pq) runs one loop for a queue the rebalance just took (push_rebalance.h). Each turn:
//  * Orderly clustering without the queue's broker lock: wait pull_delay_when_exception (3 s).
//  * Flow control: more than pull_threshold_for_queue messages or
//    pull_threshold_size_for_queue_bytes cached, or (concurrent) an offset span over
//    consume_concurrently_max_span → wait pull_delay_when_flow_control (50 ms).
//  * PULL_MESSAGE (PullAPI) from the queue's next offset with long polling (broker_suspend_max
//    15 s, call timeout pull_timeout_when_suspend 30 s), pull_batch_size (32), the topic's
//    subscription expression and (clustering) the in-memory offset piggy-backed as commitOffset.
//  * FOUND → the next offset moves on and the messages go to the consume service
//    (ConsumeService::dispatch). NO_NEW_MSG / NO_MATCHED_MSG → the next offset moves on and, with
//    nothing cached, the queue's offset too (RocketMQ's correctTagsOffset). An error → wait
//    pull_delay_when_exception. OFFSET_ILLEGAL → the queue is dropped, its offset set to the
//    broker's next offset after pull_delay_when_offset_illegal (10 s) and persisted, and the
//    queue table told to forget it (`forget`); the next rebalance takes it up again.
//  * Then pull_interval (0 by default) before the next turn.
// A loop ends when its queue is dropped (given up by the rebalance, OFFSET_ILLEGAL) or at
// stop(), at its next look; a pull in flight is not interrupted (its reply is then dropped).
//
// Lifetime: built by PushConsumer::start() and kept until the consumer is destroyed; `consume`
// outlives it; the loops live in ctx.tasks (destroying them cancels their pulls and sleeps).
// Loop thread only.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "client/consume_service.h"
#include "client/process_queue.h"
#include "client/message_selector.h"
#include "client/pull_api.h"
#include "client/push_context.h"
#include "runtime/log_limiter.h"

namespace ferry::client {

class PullService {
 public:
  // The queue table forgets `pq` (when it still holds that very ProcessQueue).
  using Forget = std::function<void(const std::shared_ptr<ProcessQueue>& pq)>;

  // `selectors`: the subscription of every subscribed topic.
  PullService(PushContext ctx, std::map<std::string, MessageSelector> selectors, ConsumeService& consume, Forget forget);
  PullService(const PullService&) = delete;
  PullService& operator=(const PullService&) = delete;

  // Starts the pull loop of a queue just taken (spawned: nothing runs inline).
  void start(std::shared_ptr<ProcessQueue> pq);
  // Every loop ends at its next look.
  void stop() { running_ = false; }

 private:
  // Ends when `pq` is dropped or at stop() (above), or when ctx.tasks destroys it.
  static Task<void> pull_loop(PullService* self, std::shared_ptr<ProcessQueue> pq);

  const PushContext ctx_;
  const std::map<std::string, MessageSelector> selectors_;  // by topic
  ConsumeService& consume_;
  const Forget forget_;
  PullAPI pull_api_;
  bool running_ = true;
  LogLimiter pull_error_log_;      // failed pulls of all its queues, by Errc
  LogLimiter offset_illegal_log_;  // OFFSET_ILLEGAL answers
};

}  // namespace ferry::client
