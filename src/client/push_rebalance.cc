// PushRebalance (push_rebalance.h): rebalance rounds, the queue table, orderly broker locks.
#include "client/push_rebalance.h"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

#include "client/consumer_calls.h"
#include "client/rebalance.h"
#include "runtime/assert.h"

namespace ferry::client {

namespace {
constexpr Duration kFirstLockDelay = std::chrono::seconds(1);
}  // namespace

PushRebalance::PushRebalance(PushContext ctx, std::vector<std::string> topics, WallMs consume_timestamp_ms,
                             PullService& pull)
    : ctx_(ctx), topics_(std::move(topics)), consume_timestamp_ms_(consume_timestamp_ms), pull_(pull) {
  FERRY_ASSERT(std::is_sorted(topics_.begin(), topics_.end()), "rebalance of group '{}': topics not sorted",
               ctx_.config.group);
}

void PushRebalance::start() {
  if (ctx_.needs_locks()) ctx_.tasks.spawn(lock_loop(this), "consumer-lock");
}

// ---- rounds ------------------------------------------------------------------------------------

void PushRebalance::rebalance_soon() {
  if (!running_) return;
  if (rebalancing_) {
    rebalance_again_ = true;
    return;
  }
  rebalancing_ = true;
  ctx_.tasks.spawn(rebalance_task(this), "consumer-rebalance");
}

Task<void> PushRebalance::rebalance() {
  if (rebalancing_) {
    rebalance_again_ = true;
    co_return;
  }
  rebalancing_ = true;
  co_await rebalance_task(this);
}

Task<void> PushRebalance::rebalance_task(PushRebalance* self) {
  // buggify: the rebalance runs twice in a row (as when a notification arrives mid-round).
  bool twice = FERRY_BUGGIFY(self->ctx_.rt);
  do {
    self->rebalance_again_ = false;
    co_await self->rebalance_round();
    if (std::exchange(twice, false)) self->rebalance_again_ = true;
  } while (self->rebalance_again_ && self->running_);
  self->rebalancing_ = false;
}

Task<void> PushRebalance::rebalance_round() {
  ++ctx_.stats.rebalances;
  for (const std::string& topic : topics_) {
    if (!running_) co_return;
    AllocationRequest req{ctx_.config.group, topic, ctx_.config.message_model, ctx_.config.allocate_strategy};
    Task<Result<std::vector<MessageQueue>>> at = allocated_queues(ctx_.ci, std::move(req));
    Result<std::vector<MessageQueue>> allocated = co_await std::move(at);
    if (!allocated.ok()) {
      if (auto held = allocate_error_log_.admit(ctx_.rt.now(), static_cast<std::int64_t>(allocated.error().code))) {
        ctx_.rt.log().info("rebalance of group '{}', topic '{}': {}{}", ctx_.config.group, topic,
                           allocated.error().to_string(), held_back_note(*held));
      }
      continue;
    }
    co_await update_queue_table(topic, std::move(*allocated));
  }
}

Task<void> PushRebalance::update_queue_table(std::string topic, std::vector<MessageQueue> allocated) {
  std::sort(allocated.begin(), allocated.end());
  // Give up what is no longer ours.
  std::vector<std::shared_ptr<ProcessQueue>> gone;
  for (const auto& [mq, pq] : queues_) {
    if (mq.topic == topic && !std::binary_search(allocated.begin(), allocated.end(), mq)) gone.push_back(pq);
  }
  for (const auto& pq : gone) {
    const bool removed = co_await remove_queue(pq);
    if (removed) {
      forget(pq);
      ctx_.rt.log().info("group '{}' gave up {}", ctx_.config.group, pq->queue().to_string());
    }
  }
  // Take up what is new.
  const bool need_lock = ctx_.needs_locks();
  for (const MessageQueue& mq : allocated) {
    if (!running_) co_return;
    if (queues_.count(mq) != 0) continue;
    if (need_lock) {
      const bool locked = co_await lock_one(mq);
      if (!locked) {
        if (auto held = locked_elsewhere_log_.admit(ctx_.rt.now())) {
          ctx_.rt.log().info("group '{}': {} is locked by another client; not taken this round{}", ctx_.config.group,
                             mq.to_string(), held_back_note(*held));
        }
        continue;
      }
    }
    ctx_.offsets.remove(mq);  // RocketMQ's removeDirtyOffset
    StartOffsetRequest sreq{mq, ctx_.config.consume_from_where, consume_timestamp_ms_};
    Task<Result<QueueOffset>> st = start_offset(ctx_.ci, ctx_.offsets, std::move(sreq));
    Result<QueueOffset> start = co_await std::move(st);
    if (!start.ok()) {
      if (auto held = start_offset_log_.admit(ctx_.rt.now(), static_cast<std::int64_t>(start.error().code))) {
        ctx_.rt.log().warn("group '{}': no start offset for {}: {}{}", ctx_.config.group, mq.to_string(),
                           start.error().to_string(), held_back_note(*held));
      }
      continue;
    }
    if (!running_ || queues_.count(mq) != 0) continue;
    if (!ctx_.clustering()) {
      // Broadcasting: the start is written to the local offset file before the queue is taken,
      // not at the first persist round (10 s after start). A consumer killed before that round
      // would otherwise start again from consume_from_where (the queue's end) and skip what was
      // sent meanwhile; RocketMQ's does (Guarantees.BroadcastReachesEveryConsumer found it, a
      // consumer paused at 5 s and killed at 12 s).
      ctx_.offsets.update(mq, *start, true);
      co_await ctx_.offsets.persist(mq);
      if (!running_ || queues_.count(mq) != 0) continue;
    }
    auto pq = std::make_shared<ProcessQueue>(mq, *start);
    if (need_lock) {
      pq->set_locked(true, ctx_.rt.now());
      pq->set_previously_locked();
    }
    queues_.emplace(mq, pq);
    ctx_.rt.log().info("group '{}' took {} from offset {}", ctx_.config.group, mq.to_string(), *start);
    pull_.start(pq);
  }
}

Task<bool> PushRebalance::remove_queue(std::shared_ptr<ProcessQueue> pq) {
  pq->drop();
  // An orderly queue whose listener runs keeps its lock until the call ends (next round).
  if (ctx_.needs_locks() && pq->in_listener > 0) co_return false;
  const MessageQueue mq = pq->queue();
  co_await ctx_.offsets.persist(mq);
  ctx_.offsets.remove(mq);
  if (ctx_.needs_locks()) {
    std::vector<MessageQueue> one{mq};
    Status s = co_await unlock_batch(ctx_.ci, ctx_.config.group, mq.broker_name, std::move(one), true);
    if (!s.ok()) ctx_.rt.log().info("unlock {}: {}", mq.to_string(), s.error().to_string());
  }
  co_return true;
}

void PushRebalance::forget(const std::shared_ptr<ProcessQueue>& pq) {
  auto it = queues_.find(pq->queue());
  if (it != queues_.end() && it->second == pq) queues_.erase(it);
}

Task<void> PushRebalance::release_all() {
  FERRY_ASSERT(!running_, "release_all() of group '{}' before stop()", ctx_.config.group);
  std::vector<MessageQueue> held = held_queues();
  for (auto& [mq, pq] : queues_) pq->drop();
  co_await ctx_.offsets.persist_final(held);
  if (!ctx_.needs_locks()) co_return;
  std::map<std::string, std::vector<MessageQueue>> by_broker;
  for (const MessageQueue& mq : held) by_broker[mq.broker_name].push_back(mq);
  for (auto& [broker, mqs] : by_broker) {
    Status s = co_await unlock_batch(ctx_.ci, ctx_.config.group, broker, mqs, false);
    if (!s.ok()) ctx_.rt.log().info("unlock at shutdown: {}", s.error().to_string());
  }
}

// ---- offset resets -----------------------------------------------------------------------------

std::size_t PushRebalance::reset_offsets(const std::string& topic, const std::map<MessageQueue, QueueOffset>& offsets) {
  if (!running_) return 0;
  std::vector<MessageQueue> reset;
  for (auto& [mq, pq] : queues_) {
    if (mq.topic != topic) continue;
    auto target = offsets.find(mq);
    if (target == offsets.end()) continue;
    FERRY_ASSERT(target->second >= QueueOffset(0), "reset of {} to the negative offset {}", mq.to_string(), target->second);
    pq->drop();
    auto fresh = std::make_shared<ProcessQueue>(mq, target->second);
    if (ctx_.needs_locks()) {
      fresh->set_locked(pq->locked(), pq->last_lock_time());
      if (pq->previously_locked()) fresh->set_previously_locked();
    }
    ctx_.rt.log().info("group '{}': {} restarts at offset {} (reset; it was at {})", ctx_.config.group, mq.to_string(),
                       target->second, pq->next_offset());
    pq = fresh;
    ctx_.offsets.update(mq, target->second, false);
    ++ctx_.stats.offset_resets;
    reset.push_back(mq);
    pull_.start(fresh);
  }
  if (!reset.empty()) ctx_.tasks.spawn(persist_queues(this, reset), "consumer-persist-reset");
  return reset.size();
}

Task<void> PushRebalance::persist_queues(PushRebalance* self, std::vector<MessageQueue> mqs) {
  for (const MessageQueue& mq : mqs) co_await self->ctx_.offsets.persist(mq);
}

// ---- the table ---------------------------------------------------------------------------------

std::vector<MessageQueue> PushRebalance::held_queues() const {
  std::vector<MessageQueue> out;
  for (const auto& [mq, pq] : queues_) out.push_back(mq);
  return out;
}

std::vector<std::shared_ptr<ProcessQueue>> PushRebalance::held() const {
  std::vector<std::shared_ptr<ProcessQueue>> out;
  for (const auto& [mq, pq] : queues_) out.push_back(pq);
  return out;
}

std::shared_ptr<const ProcessQueue> PushRebalance::process_queue(const MessageQueue& mq) const {
  auto it = queues_.find(mq);
  return it == queues_.end() ? nullptr : it->second;
}

// ---- orderly locks -----------------------------------------------------------------------------

Task<bool> PushRebalance::lock_one(MessageQueue mq) {
  std::vector<MessageQueue> one{mq};
  Result<std::vector<MessageQueue>> r = co_await lock_batch(ctx_.ci, ctx_.config.group, mq.broker_name, std::move(one));
  if (!r.ok()) {
    if (auto held = lock_error_log_.admit(ctx_.rt.now(), static_cast<std::int64_t>(r.error().code))) {
      ctx_.rt.log().info("lock {}: {}{}", mq.to_string(), r.error().to_string(), held_back_note(*held));
    }
    co_return false;
  }
  const bool locked = std::find(r->begin(), r->end(), mq) != r->end();
  auto it = queues_.find(mq);
  if (it != queues_.end()) it->second->set_locked(locked, ctx_.rt.now());
  co_return locked;
}

Task<void> PushRebalance::lock_all() {
  ++ctx_.stats.lock_rounds;
  std::map<std::string, std::vector<MessageQueue>> by_broker;
  for (const auto& [mq, pq] : queues_) by_broker[mq.broker_name].push_back(mq);
  for (auto& [broker, mqs] : by_broker) {
    const std::vector<MessageQueue> asked = mqs;
    Result<std::vector<MessageQueue>> r = co_await lock_batch(ctx_.ci, ctx_.config.group, broker, std::move(mqs));
    if (!r.ok()) {
      if (auto held = lock_error_log_.admit(ctx_.rt.now(), static_cast<std::int64_t>(r.error().code))) {
        ctx_.rt.log().info("lock queues of broker '{}': {}{}", broker, r.error().to_string(), held_back_note(*held));
      }
      continue;
    }
    for (const MessageQueue& mq : asked) {
      auto it = queues_.find(mq);
      if (it == queues_.end()) continue;
      const bool locked = std::find(r->begin(), r->end(), mq) != r->end();
      if (!locked && it->second->locked()) {
        ctx_.rt.log().warn("group '{}' lost the lock of {}", ctx_.config.group, mq.to_string());
      }
      it->second->set_locked(locked, ctx_.rt.now());
    }
  }
}

Task<void> PushRebalance::lock_loop(PushRebalance* self) {
  co_await self->ctx_.rt.sleep(kFirstLockDelay);
  while (self->running_) {
    co_await self->lock_all();
    co_await self->ctx_.rt.sleep(self->ctx_.config.lock_renew_interval);
  }
}

}  // namespace ferry::client
