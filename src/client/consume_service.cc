// ConsumeService (consume_service.h): the workers, concurrent and orderly consumption, the
// consume timeout.
#include "client/consume_service.h"

#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <set>

#include "common/message_const.h"
#include "common/names.h"
#include "runtime/assert.h"

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
  bool threw = false;
};

struct OrderlyCall {
  std::shared_ptr<const OrderlyListener> listener;
  std::vector<MessageExt> msgs;
  ConsumeOrderlyContext ctx;
  ConsumeOrderlyStatus status = ConsumeOrderlyStatus::SUSPEND_CURRENT_QUEUE_A_MOMENT;
  bool threw = false;
};

}  // namespace

ConsumeService::ConsumeService(PushContext ctx, std::shared_ptr<const ConcurrentListener> concurrent,
                               std::shared_ptr<const OrderlyListener> orderly, Links links)
    : ctx_(ctx),
      concurrent_listener_(std::move(concurrent)),
      orderly_listener_(std::move(orderly)),
      links_(std::move(links)),
      work_(ctx.rt.executor()) {
  FERRY_ASSERT((concurrent_listener_ == nullptr) != (orderly_listener_ == nullptr),
               "consume service of group '{}' with {} concurrent and {} orderly listener(s)", ctx_.config.group,
               concurrent_listener_ ? 1 : 0, orderly_listener_ ? 1 : 0);
  FERRY_ASSERT(ctx_.orderly == (orderly_listener_ != nullptr), "consume service of group '{}': context says orderly={}",
               ctx_.config.group, ctx_.orderly);
  FERRY_ASSERT(links_.lock && links_.held, "consume service of group '{}' without its queue-table links", ctx_.config.group);
}

void ConsumeService::start_workers() {
  for (std::int32_t i = 0; i < ctx_.config.consume_threads; ++i) ctx_.tasks.spawn(worker(this), "consumer-worker");
}

void ConsumeService::start_timeout_loop() {
  if (!ctx_.orderly && ctx_.clustering()) ctx_.tasks.spawn(clean_expired_loop(this), "consumer-clean-expired");
}

void ConsumeService::stop() {
  running_ = false;
  work_.notify_all();
}

void ConsumeService::dispatch(const std::shared_ptr<ProcessQueue>& pq, std::vector<MessageExt> msgs) {
  if (ctx_.orderly) {
    if (pq->put(std::move(msgs))) enqueue(ConsumeRequest{pq, {}});
    return;
  }
  const auto batch = static_cast<std::size_t>(ctx_.config.consume_message_batch_max_size);
  pq->track(msgs);  // the queue counts them; the requests below hold them
  for (std::size_t i = 0; i < msgs.size(); i += batch) {
    const std::size_t end = std::min(msgs.size(), i + batch);
    ConsumeRequest r{pq, {}};
    r.msgs.assign(std::make_move_iterator(msgs.begin() + static_cast<std::ptrdiff_t>(i)),
                  std::make_move_iterator(msgs.begin() + static_cast<std::ptrdiff_t>(end)));
    enqueue(std::move(r));
  }
}

void ConsumeService::enqueue(ConsumeRequest r) {
  pending_.push_back(std::move(r));
  work_.notify_one();
}

Task<void> ConsumeService::enqueue_after(ConsumeService* self, ConsumeRequest r, Duration delay) {
  co_await self->ctx_.rt.sleep(delay);
  if (!self->running_ || r.pq->dropped()) co_return;
  self->enqueue(std::move(r));
}

Task<void> ConsumeService::worker(ConsumeService* self) {
  while (self->running_) {
    if (self->pending_.empty()) {
      co_await self->work_.wait();
      continue;
    }
    ConsumeRequest r = std::move(self->pending_.front());
    self->pending_.pop_front();
    if (self->ctx_.orderly) {
      Task<void> t = self->consume_orderly(std::move(r.pq));
      co_await std::move(t);
    } else {
      Task<void> t = self->consume_concurrently(std::move(r));
      co_await std::move(t);
    }
  }
}

// What the listener sees: retried messages under their original topic, the start time set.
std::vector<MessageExt> ConsumeService::for_listener(std::vector<MessageExt> msgs) {
  const std::string group_retry = retry_topic(ctx_.config.group);
  const std::string now = std::to_string(ctx_.rt.wall_ms());
  for (MessageExt& m : msgs) {
    if (m.topic == group_retry) {
      if (auto original = m.retry_topic()) m.topic = std::string(*original);
    }
    m.properties.set(prop::kConsumeStartTimestamp, now);
  }
  return msgs;
}

std::int32_t ConsumeService::max_reconsume_times() const {
  if (ctx_.config.max_reconsume_times >= 0) return ctx_.config.max_reconsume_times;
  return ctx_.orderly ? INT32_MAX : kDefaultMaxReconsumeTimes;
}

SendBackRequest ConsumeService::send_back_request(const MessageQueue& mq, std::int32_t delay_level) const {
  SendBackRequest sb;
  sb.group = ctx_.config.group;
  sb.broker_name = mq.broker_name;
  sb.delay_level = delay_level;
  sb.max_reconsume_times = max_reconsume_times();
  sb.timeout = ctx_.config.send_back_timeout;
  return sb;
}

// ---- message trace (RocketMQ's ConsumeMessageTraceHookImpl) --------------------------------------

std::vector<TraceContext> ConsumeService::trace_before(const std::vector<MessageExt>& msgs) {
  std::vector<TraceContext> out;
  if (ctx_.trace == nullptr) return out;
  const std::string request_id = ctx_.trace->new_request_id();
  const WallMs now = ctx_.rt.wall_ms();
  for (const MessageExt& m : msgs) {
    std::optional<TraceContext> c = sub_before_context(m, ctx_.config.group, request_id, now);
    if (!c) continue;
    if (ctx_.trace->append(*c)) out.push_back(*std::move(c));
  }
  return out;
}

void ConsumeService::trace_after(const std::vector<TraceContext>& before, bool success, bool threw, Duration cost,
                                 std::size_t messages) {
  if (ctx_.trace == nullptr || before.empty()) return;
  // RocketMQ's order: an exception, then the consume timeout, then the status.
  const ConsumeReturnType code = threw                                 ? ConsumeReturnType::exception
                                 : cost >= ctx_.config.consume_timeout ? ConsumeReturnType::time_out
                                 : success                             ? ConsumeReturnType::success
                                                                       : ConsumeReturnType::failed;
  const auto per_message = static_cast<std::int32_t>(to_ms(cost) / static_cast<std::int64_t>(std::max<std::size_t>(messages, 1)));
  const WallMs now = ctx_.rt.wall_ms();
  for (const TraceContext& b : before) (void)ctx_.trace->append(sub_after_context(b, success && !threw, code, per_message, now));
}

// ---- concurrently ------------------------------------------------------------------------------

Task<void> ConsumeService::consume_concurrently(ConsumeRequest r) {
  std::shared_ptr<ProcessQueue> pq = r.pq;
  if (pq->dropped() || r.msgs.empty()) co_return;
  auto call = std::make_shared<ConcurrentCall>();
  call->listener = concurrent_listener_;
  // The request's messages become the listener's (no copy): what follows reads them as the
  // listener saw them, as RocketMQ's resubmitted and sent-back messages are. The process queue
  // keeps a reference to them for its consume-timeout check.
  call->msgs = for_listener(std::move(r.msgs));
  call->ctx.queue = pq->queue();
  pq->mark_consume_started(std::shared_ptr<const std::vector<MessageExt>>(call, &call->msgs), ctx_.rt.now());
  std::function<void()> fn = [call] {
    try {
      call->status = (*call->listener)(call->msgs, call->ctx);
    } catch (...) {
      call->status = ConsumeConcurrentlyStatus::RECONSUME_LATER;  // RocketMQ: an exception is a null status
      call->threw = true;
    }
  };
  ++ctx_.stats.listener_calls;
  ++pq->in_listener;
  const MonoTime call_began = ctx_.rt.now();
  const std::vector<TraceContext> traced = trace_before(call->msgs);
  Task<void> t = ctx_.rt.offload(std::move(fn));
  co_await std::move(t);
  --pq->in_listener;
  pq->last_consume_time = ctx_.rt.now();
  trace_after(traced, call->status == ConsumeConcurrentlyStatus::CONSUME_SUCCESS, call->threw,
              pq->last_consume_time - call_began, call->msgs.size());
  if (ctx_.rates != nullptr) {
    const bool ok = call->status == ConsumeConcurrentlyStatus::CONSUME_SUCCESS;
    const auto n = static_cast<std::int64_t>(call->msgs.size());
    const std::int64_t acked = ok ? std::min<std::int64_t>(n, std::int64_t{call->ctx.ack_index} + 1) : 0;
    ctx_.rates->consumed(pq->queue().topic, acked, n - acked, pq->last_consume_time - call_began, pq->last_consume_time);
  }
  if (pq->dropped()) co_return;  // given up meanwhile: the new holder consumes again

  const auto n = static_cast<std::int32_t>(call->msgs.size());
  const std::int32_t ack = call->status == ConsumeConcurrentlyStatus::CONSUME_SUCCESS
                               ? std::min(call->ctx.ack_index, n - 1)
                               : -1;
  if (ack < n - 1) ctx_.stats.reconsume_later += static_cast<std::uint64_t>(n - 1 - ack);
  std::set<QueueOffset> failed;
  std::vector<MessageExt> retry_here;
  for (std::int32_t i = ack + 1; i < n; ++i) {
    const MessageExt& m = call->msgs[static_cast<std::size_t>(i)];
    if (!ctx_.clustering()) {
      if (auto held = broadcast_drop_log_.admit(ctx_.rt.now())) {
        ctx_.rt.log().warn("broadcasting consumer of '{}' drops {} (offset {} of {}) after RECONSUME_LATER{}",
                           ctx_.config.group, m.msg_id(), m.queue_offset, pq->queue().to_string(), held_back_note(*held));
      }
      continue;
    }
    SendBackRequest sb = send_back_request(pq->queue(), call->ctx.delay_level_when_next_consume);
    Task<Result<SendBackPath>> st = send_back_with_fallback(ctx_.ci, std::move(sb), m, send_back_log_);
    Result<SendBackPath> s = co_await std::move(st);
    if (s.ok()) {
      ++(*s == SendBackPath::broker ? ctx_.stats.sent_back : ctx_.stats.resent_to_retry_topic);
      continue;
    }
    ++ctx_.stats.send_back_failed;
    if (auto held = send_back_error_log_.admit(ctx_.rt.now(), static_cast<std::int64_t>(s.error().code))) {
      ctx_.rt.log().info("send back {} of {}: {}; consuming it again here{}", m.msg_id(), pq->queue().to_string(),
                         s.error().to_string(), held_back_note(*held));
    }
    failed.insert(m.queue_offset);
    MessageExt again = m;
    again.reconsume_times += 1;
    retry_here.push_back(std::move(again));
  }
  std::vector<MessageExt> done;
  for (MessageExt& m : call->msgs) {
    if (failed.count(m.queue_offset) == 0) done.push_back(std::move(m));
  }
  std::optional<QueueOffset> offset = pq->remove(done);
  if (offset && !pq->dropped()) ctx_.offsets.update(pq->queue(), *offset, true);
  if (!retry_here.empty()) {
    ConsumeRequest later{pq, std::move(retry_here)};
    ctx_.tasks.spawn(enqueue_after(this, std::move(later), ctx_.config.local_retry_delay), "consumer-retry-later");
  }
}

// ---- consume timeout (RocketMQ's ProcessQueue.cleanExpiredMsg) ------------------------------------

Task<void> ConsumeService::clean_expired_loop(ConsumeService* self) {
  while (self->running_) {
    co_await self->ctx_.rt.sleep(self->ctx_.config.consume_timeout);  // RocketMQ: every consumeTimeout
    if (!self->running_) break;
    const std::vector<std::shared_ptr<ProcessQueue>> held = self->links_.held();
    for (const auto& pq : held) {
      Task<void> t = self->clean_expired(pq);
      co_await std::move(t);
    }
  }
}

Task<void> ConsumeService::clean_expired(std::shared_ptr<ProcessQueue> pq) {
  for (int i = 0; i < kExpiredPerQueueRound && running_ && !pq->dropped(); ++i) {
    std::optional<MessageExt> first = pq->expired_first(ctx_.rt.now(), ctx_.config.consume_timeout);
    if (!first) co_return;
    std::vector<MessageExt> one;
    one.push_back(*first);
    one = for_listener(std::move(one));  // the original topic of a retried message
    if (auto held = expired_log_.admit(ctx_.rt.now())) {
      ctx_.rt.log().warn("group '{}': the listener has been consuming {} (offset {} of {}) for more than {} ms; sending "
                         "it back{}", ctx_.config.group, first->msg_id(), first->queue_offset, pq->queue().to_string(),
                         to_ms(ctx_.config.consume_timeout), held_back_note(*held));
    }
    SendBackRequest sb = send_back_request(pq->queue(), kExpiredDelayLevel);
    Task<Result<SendBackPath>> st = send_back_with_fallback(ctx_.ci, std::move(sb), one.front(), send_back_log_);
    Result<SendBackPath> s = co_await std::move(st);
    if (!s.ok()) {
      if (auto held = expired_error_log_.admit(ctx_.rt.now(), static_cast<std::int64_t>(s.error().code))) {
        ctx_.rt.log().warn("send back expired {} of {}: {}; kept{}", first->msg_id(), pq->queue().to_string(),
                           s.error().to_string(), held_back_note(*held));
      }
      co_return;
    }
    ++ctx_.stats.expired;
    if (pq->dropped()) co_return;  // given up meanwhile: the new holder consumes again
    std::optional<QueueOffset> offset = pq->remove(one);
    if (offset) ctx_.offsets.update(pq->queue(), *offset, true);
  }
}

// ---- orderly -----------------------------------------------------------------------------------

Task<void> ConsumeService::lock_then_enqueue(ConsumeService* self, std::shared_ptr<ProcessQueue> pq, Duration delay) {
  co_await self->ctx_.rt.sleep(delay);
  if (!self->running_ || pq->dropped()) co_return;
  Task<bool> lock = self->links_.lock(pq->queue());
  const bool locked = co_await std::move(lock);
  co_await self->ctx_.rt.sleep(locked ? kOrderlyRetryDelay : kOrderlyLockFailedDelay);
  if (!self->running_ || pq->dropped()) co_return;
  self->enqueue(ConsumeRequest{pq, {}});
}

Task<void> ConsumeService::consume_orderly(std::shared_ptr<ProcessQueue> pq) {
  if (pq->dropped()) co_return;
  const bool cl = ctx_.clustering();
  const Duration lock_life = ctx_.config.lock_max_live_time;
  if (cl && (!pq->locked() || pq->lock_expired(ctx_.rt.now(), lock_life))) {
    ctx_.tasks.spawn(lock_then_enqueue(this, pq, kOrderlyLockRetryDelay), "consumer-orderly-lock");
    co_return;
  }
  const MonoTime begin = ctx_.rt.now();
  const std::int32_t max_reconsume = max_reconsume_times();
  while (running_ && !pq->dropped()) {
    if (cl && (!pq->locked() || pq->lock_expired(ctx_.rt.now(), lock_life))) {
      ctx_.tasks.spawn(lock_then_enqueue(this, pq, kOrderlyRetryDelay), "consumer-orderly-lock");
      co_return;
    }
    if (ctx_.rt.now() - begin > ctx_.config.orderly_consume_round_max) {
      ConsumeRequest again{pq, {}};
      ctx_.tasks.spawn(enqueue_after(this, std::move(again), kOrderlyRetryDelay), "consumer-orderly-later");
      co_return;
    }
    std::vector<MessageExt> taken = pq->take(static_cast<std::size_t>(ctx_.config.consume_message_batch_max_size));
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
        call->threw = true;
      }
    };
    ++ctx_.stats.listener_calls;
    ++pq->in_listener;
    const MonoTime call_began = ctx_.rt.now();
    const std::vector<TraceContext> traced = trace_before(call->msgs);
    Task<void> t = ctx_.rt.offload(std::move(fn));
    co_await std::move(t);
    --pq->in_listener;
    pq->last_consume_time = ctx_.rt.now();
    trace_after(traced, call->status == ConsumeOrderlyStatus::SUCCESS, call->threw, pq->last_consume_time - call_began,
                call->msgs.size());
    if (ctx_.rates != nullptr) {
      const auto n = static_cast<std::int64_t>(call->msgs.size());
      const bool ok = call->status == ConsumeOrderlyStatus::SUCCESS;
      ctx_.rates->consumed(pq->queue().topic, ok ? n : 0, ok ? 0 : n, pq->last_consume_time - call_began,
                           pq->last_consume_time);
    }

    bool suspend = call->status == ConsumeOrderlyStatus::SUSPEND_CURRENT_QUEUE_A_MOMENT;
    if (suspend) {
      ++ctx_.stats.reconsume_later;
      // Beyond max_reconsume_times the batch goes to the DLQ instead (RocketMQ's checkReconsumeTimes).
      bool exceeded = false;
      for (const MessageExt& m : taken) exceeded = exceeded || m.reconsume_times >= max_reconsume;
      if (exceeded && cl) {
        bool all_sent = true;
        for (const MessageExt& m : call->msgs) {
          SendBackRequest sb = send_back_request(pq->queue(), -1);
          Task<Result<SendBackPath>> st = send_back_with_fallback(ctx_.ci, std::move(sb), m, send_back_log_);
          Result<SendBackPath> s = co_await std::move(st);
          all_sent = all_sent && s.ok();
        }
        suspend = !all_sent;
      }
    }
    if (suspend) {
      for (MessageExt& m : taken) m.reconsume_times += 1;
      pq->put_back(std::move(taken));
      const Duration pause = call->ctx.suspend_current_queue_time >= Duration::zero()
                                 ? call->ctx.suspend_current_queue_time
                                 : ctx_.config.suspend_current_queue_time;
      ConsumeRequest again{pq, {}};
      ctx_.tasks.spawn(enqueue_after(this, std::move(again), pause), "consumer-orderly-suspend");
      co_return;
    }
    std::optional<QueueOffset> offset = pq->commit();
    if (offset && !pq->dropped()) ctx_.offsets.update(pq->queue(), *offset, false);
  }
}

}  // namespace ferry::client
