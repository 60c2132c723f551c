// PushConsumer: the listener workers and both consumption modes (RocketMQ's
// ConsumeMessageConcurrentlyService and ConsumeMessageOrderlyService).
//
// consume_threads workers take requests in FIFO order. A listener runs through
// Runtime::offload on data it owns (a shared call record), so a consumer destroyed while a
// listener runs on an offload thread leaves nothing dangling; its result is then dropped.
#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <set>

#include "client/push_consumer.h"
#include "client/send_back.h"
#include "common/message_const.h"
#include "common/names.h"

namespace ferry::client {

namespace {

constexpr std::int32_t kDefaultMaxReconsumeTimes = 16;
constexpr Duration kOrderlyRetryDelay = std::chrono::milliseconds(10);
constexpr Duration kOrderlyLockRetryDelay = std::chrono::milliseconds(100);
constexpr Duration kOrderlyLockFailedDelay = std::chrono::seconds(3);
// cleanExpiredMsg: at most this many messages of a queue per round; their send-back level.
constexpr int kExpiredPerQueueRound = 16;
constexpr std::int32_t kExpiredDelayLevel = 3;

struct ConcurrentCall {
  std::shared_ptr<const ConcurrentListener> listener;
  std::vector<MessageExt> msgs;
  ConsumeConcurrentlyContext ctx;
  ConsumeConcurrentlyStatus status = ConsumeConcurrentlyStatus::RECONSUME_LATER;
};

struct OrderlyCall {
  std::shared_ptr<const OrderlyListener> listener;
  std::vector<MessageExt> msgs;
  ConsumeOrderlyContext ctx;
  ConsumeOrderlyStatus status = ConsumeOrderlyStatus::SUSPEND_CURRENT_QUEUE_A_MOMENT;
};

}  // namespace

void PushConsumer::enqueue(ConsumeRequest r) {
  pending_.push_back(std::move(r));
  work_.notify_one();
}

Task<void> PushConsumer::enqueue_after(PushConsumer* self, ConsumeRequest r, Duration delay) {
  co_await self->rt_.sleep(delay);
  if (!self->running_ || r.pq->dropped()) co_return;
  self->enqueue(std::move(r));
}

Task<void> PushConsumer::worker(PushConsumer* self) {
  while (self->running_) {
    if (self->pending_.empty()) {
      co_await self->work_.wait();
      continue;
    }
    ConsumeRequest r = std::move(self->pending_.front());
    self->pending_.pop_front();
    if (self->orderly()) {
      Task<void> t = self->consume_orderly(std::move(r.pq));
      co_await std::move(t);
    } else {
      Task<void> t = self->consume_concurrently(std::move(r));
      co_await std::move(t);
    }
  }
}

// What the listener sees: retried messages under their original topic, the start time set.
std::vector<MessageExt> PushConsumer::for_listener(std::vector<MessageExt> msgs) {
  const std::string group_retry = retry_topic(config_.group);
  const std::string now = std::to_string(rt_.wall_ms());
  for (MessageExt& m : msgs) {
    if (m.topic == group_retry) {
      if (auto original = m.retry_topic()) m.topic = std::string(*original);
    }
    m.properties.set(prop::kConsumeStartTimestamp, now);
  }
  return msgs;
}

std::int32_t PushConsumer::max_reconsume_times() const {
  if (config_.max_reconsume_times >= 0) return config_.max_reconsume_times;
  return orderly() ? INT32_MAX : kDefaultMaxReconsumeTimes;
}

SendBackRequest PushConsumer::send_back_request(const MessageQueue& mq, std::int32_t delay_level) const {
  SendBackRequest sb;
  sb.group = config_.group;
  sb.broker_name = mq.broker_name;
  sb.delay_level = delay_level;
  sb.max_reconsume_times = max_reconsume_times();
  sb.timeout = config_.send_back_timeout;
  return sb;
}

// ---- concurrently ------------------------------------------------------------------------------

Task<void> PushConsumer::consume_concurrently(ConsumeRequest r) {
  std::shared_ptr<ProcessQueue> pq = r.pq;
  if (pq->dropped() || r.msgs.empty()) co_return;
  auto call = std::make_shared<ConcurrentCall>();
  call->listener = concurrent_listener_;
  call->msgs = for_listener(r.msgs);
  call->ctx.queue = pq->queue();
  pq->mark_consume_started(r.msgs, rt_.now());
  std::function<void()> fn = [call] {
    try {
      call->status = (*call->listener)(call->msgs, call->ctx);
    } catch (...) {
      call->status = ConsumeConcurrentlyStatus::RECONSUME_LATER;  // RocketMQ: an exception is a null status
    }
  };
  ++stats_.listener_calls;
  ++pq->in_listener;
  Task<void> t = rt_.offload(std::move(fn));
  co_await std::move(t);
  --pq->in_listener;
  if (pq->dropped()) co_return;  // given up meanwhile: the new holder consumes again

  const auto n = static_cast<std::int32_t>(call->msgs.size());
  const std::int32_t ack = call->status == ConsumeConcurrentlyStatus::CONSUME_SUCCESS
                               ? std::min(call->ctx.ack_index, n - 1)
                               : -1;
  if (ack < n - 1) stats_.reconsume_later += static_cast<std::uint64_t>(n - 1 - ack);
  std::set<QueueOffset> failed;
  std::vector<MessageExt> retry_here;
  for (std::int32_t i = ack + 1; i < n; ++i) {
    const MessageExt& m = call->msgs[static_cast<std::size_t>(i)];
    if (!clustering()) {
      rt_.log().warn("broadcasting consumer of '{}' drops {} (offset {} of {}) after RECONSUME_LATER", config_.group,
                     m.msg_id(), m.queue_offset, pq->queue().to_string());
      continue;
    }
    SendBackRequest sb = send_back_request(pq->queue(), call->ctx.delay_level_when_next_consume);
    Task<Result<SendBackPath>> st = send_back_with_fallback(ci_, std::move(sb), m);
    Result<SendBackPath> s = co_await std::move(st);
    if (s.ok()) {
      ++(*s == SendBackPath::broker ? stats_.sent_back : stats_.resent_to_retry_topic);
      continue;
    }
    ++stats_.send_back_failed;
    rt_.log().info("send back {} of {}: {}; consuming it again here", m.msg_id(), pq->queue().to_string(), s.error().to_string());
    failed.insert(m.queue_offset);
    MessageExt again = r.msgs[static_cast<std::size_t>(i)];
    again.reconsume_times += 1;
    retry_here.push_back(std::move(again));
  }
  std::vector<MessageExt> done;
  for (MessageExt& m : r.msgs) {
    if (failed.count(m.queue_offset) == 0) done.push_back(std::move(m));
  }
  std::optional<QueueOffset> offset = pq->remove(done);
  if (offset && !pq->dropped()) offsets_->update(pq->queue(), *offset, true);
  if (!retry_here.empty()) {
    ConsumeRequest later{pq, std::move(retry_here)};
    tasks_.spawn(enqueue_after(this, std::move(later), config_.local_retry_delay), "consumer-retry-later");
  }
}

// ---- consume timeout (RocketMQ's ProcessQueue.cleanExpiredMsg) ------------------------------------

Task<void> PushConsumer::clean_expired_loop(PushConsumer* self) {
  while (self->running_) {
    co_await self->rt_.sleep(self->config_.consume_timeout);  // RocketMQ: every consumeTimeout
    if (!self->running_) break;
    std::vector<std::shared_ptr<ProcessQueue>> held;
    for (const auto& [mq, pq] : self->queues_) held.push_back(pq);
    for (const auto& pq : held) {
      Task<void> t = self->clean_expired(pq);
      co_await std::move(t);
    }
  }
}

Task<void> PushConsumer::clean_expired(std::shared_ptr<ProcessQueue> pq) {
  for (int i = 0; i < kExpiredPerQueueRound && running_ && !pq->dropped(); ++i) {
    std::optional<MessageExt> first = pq->expired_first(rt_.now(), config_.consume_timeout);
    if (!first) co_return;
    std::vector<MessageExt> one;
    one.push_back(*first);
    one = for_listener(std::move(one));  // the original topic of a retried message
    rt_.log().warn("group '{}': the listener has been consuming {} (offset {} of {}) for more than {} ms; sending it back",
                   config_.group, first->msg_id(), first->queue_offset, pq->queue().to_string(), to_ms(config_.consume_timeout));
    SendBackRequest sb = send_back_request(pq->queue(), kExpiredDelayLevel);
    Task<Result<SendBackPath>> st = send_back_with_fallback(ci_, std::move(sb), one.front());
    Result<SendBackPath> s = co_await std::move(st);
    if (!s.ok()) {
      rt_.log().warn("send back expired {} of {}: {}; kept", first->msg_id(), pq->queue().to_string(), s.error().to_string());
      co_return;
    }
    ++stats_.expired;
    if (pq->dropped()) co_return;  // given up meanwhile: the new holder consumes again
    std::optional<QueueOffset> offset = pq->remove(one);
    if (offset) offsets_->update(pq->queue(), *offset, true);
  }
}

// ---- orderly -----------------------------------------------------------------------------------

Task<void> PushConsumer::lock_then_enqueue(PushConsumer* self, std::shared_ptr<ProcessQueue> pq, Duration delay) {
  co_await self->rt_.sleep(delay);
  if (!self->running_ || pq->dropped()) co_return;
  const bool locked = co_await self->lock_one(pq->queue());
  co_await self->rt_.sleep(locked ? kOrderlyRetryDelay : kOrderlyLockFailedDelay);
  if (!self->running_ || pq->dropped()) co_return;
  self->enqueue(ConsumeRequest{pq, {}});
}

Task<void> PushConsumer::consume_orderly(std::shared_ptr<ProcessQueue> pq) {
  if (pq->dropped()) co_return;
  const bool cl = clustering();
  const Duration lock_life = config_.lock_max_live_time;
  if (cl && (!pq->locked() || pq->lock_expired(rt_.now(), lock_life))) {
    tasks_.spawn(lock_then_enqueue(this, pq, kOrderlyLockRetryDelay), "consumer-orderly-lock");
    co_return;
  }
  const MonoTime begin = rt_.now();
  const std::int32_t max_reconsume = max_reconsume_times();
  while (running_ && !pq->dropped()) {
    if (cl && (!pq->locked() || pq->lock_expired(rt_.now(), lock_life))) {
      tasks_.spawn(lock_then_enqueue(this, pq, kOrderlyRetryDelay), "consumer-orderly-lock");
      co_return;
    }
    if (rt_.now() - begin > config_.orderly_consume_round_max) {
      ConsumeRequest again{pq, {}};
      tasks_.spawn(enqueue_after(this, std::move(again), kOrderlyRetryDelay), "consumer-orderly-later");
      co_return;
    }
    std::vector<MessageExt> taken = pq->take(static_cast<std::size_t>(config_.consume_message_batch_max_size));
    if (taken.empty()) co_return;  // consuming is off; the next pull dispatches again
    auto call = std::make_shared<OrderlyCall>();
    call->listener = orderly_listener_;
    call->msgs = for_listener(taken);
    call->ctx.queue = pq->queue();
    std::function<void()> fn = [call] {
      try {
        call->status = (*call->listener)(call->msgs, call->ctx);
      } catch (...) {
        call->status = ConsumeOrderlyStatus::SUSPEND_CURRENT_QUEUE_A_MOMENT;
      }
    };
    ++stats_.listener_calls;
    ++pq->in_listener;
    Task<void> t = rt_.offload(std::move(fn));
    co_await std::move(t);
    --pq->in_listener;

    bool suspend = call->status == ConsumeOrderlyStatus::SUSPEND_CURRENT_QUEUE_A_MOMENT;
    if (suspend) {
      ++stats_.reconsume_later;
      // Beyond max_reconsume_times the batch goes to the DLQ instead (RocketMQ's checkReconsumeTimes).
      bool exceeded = false;
      for (const MessageExt& m : taken) exceeded = exceeded || m.reconsume_times >= max_reconsume;
      if (exceeded && cl) {
        bool all_sent = true;
        for (const MessageExt& m : call->msgs) {
          SendBackRequest sb = send_back_request(pq->queue(), -1);
          Task<Result<SendBackPath>> st = send_back_with_fallback(ci_, std::move(sb), m);
          Result<SendBackPath> s = co_await std::move(st);
          all_sent = all_sent && s.ok();
        }
        suspend = !all_sent;
      }
    }
    if (suspend) {
      for (MessageExt& m : taken) m.reconsume_times += 1;
      pq->put_back(std::move(taken));
      const Duration pause = call->ctx.suspend_current_queue_time >= Duration::zero() ? call->ctx.suspend_current_queue_time
                                                                                       : config_.suspend_current_queue_time;
      ConsumeRequest again{pq, {}};
      tasks_.spawn(enqueue_after(this, std::move(again), pause), "consumer-orderly-suspend");
      co_return;
    }
    std::optional<QueueOffset> offset = pq->commit();
    if (offset && !pq->dropped()) offsets_->update(pq->queue(), *offset, false);
  }
}

}  // namespace ferry::client
