// PullService (pull_service.h): the pull loop of one held queue.
#include "client/pull_service.h"

#include <fmt/format.h>

#include "runtime/assert.h"

namespace ferry::client {

PullService::PullService(PushContext ctx, std::map<std::string, MessageSelector> selectors, ConsumeService& consume,
                         Forget forget)
    : ctx_(ctx), selectors_(std::move(selectors)), consume_(consume), forget_(std::move(forget)), pull_api_(ctx.ci) {
  FERRY_ASSERT(forget_ != nullptr, "pull service of group '{}' without a forget link", ctx_.config.group);
}

void PullService::start(std::shared_ptr<ProcessQueue> pq) {
  FERRY_ASSERT(pq != nullptr && !pq->dropped(), "pull loop of group '{}' for a {} queue", ctx_.config.group,
               pq == nullptr ? "missing" : "dropped");
  ctx_.tasks.spawn(pull_loop(this, std::move(pq)), "consumer-pull");
}

Task<void> PullService::pull_loop(PullService* self, std::shared_ptr<ProcessQueue> pq) {
  const PushConsumerConfig& c = self->ctx_.config;
  const MessageQueue mq = pq->queue();
  while (self->running_ && !pq->dropped()) {
    if (self->ctx_.needs_locks() && !pq->locked()) {
      co_await self->ctx_.rt.sleep(c.pull_delay_when_exception);  // RocketMQ: wait for the lock
      continue;
    }
    const bool too_many = pq->cached_count() > c.pull_threshold_for_queue;
    const bool too_big = pq->cached_body_bytes() > c.pull_threshold_size_for_queue_bytes;
    const bool too_wide = !self->ctx_.orderly && pq->span() > c.consume_concurrently_max_span;
    if (too_many || too_big || too_wide) {
      ++self->ctx_.stats.flow_controlled;
      co_await self->ctx_.rt.sleep(c.pull_delay_when_flow_control);
      continue;
    }
    auto selector = self->selectors_.find(mq.topic);
    if (selector == self->selectors_.end()) {  // unsubscribed meanwhile: the rebalance drops it
      co_await self->ctx_.rt.sleep(c.pull_delay_when_exception);
      continue;
    }
    PullRequest req;
    req.group = c.group;
    req.queue = mq;
    req.offset = pq->next_offset();
    req.max_nums = c.pull_batch_size;
    req.sub_expression = selector->second.expression;
    req.expression_type = selector->second.type;
    req.suspend = c.broker_suspend_max;
    req.timeout = c.pull_timeout_when_suspend;
    if (self->ctx_.clustering()) {
      std::optional<QueueOffset> committed = self->ctx_.offsets.read_memory(mq);
      if (committed && committed->value() > 0) req.commit_offset = committed;
    }
    ++self->ctx_.stats.pulls;
    const MonoTime pull_began = self->ctx_.rt.now();
    Task<Result<PullResult>> pt = self->pull_api_.pull(std::move(req));
    Result<PullResult> r = co_await std::move(pt);
    if (!self->running_ || pq->dropped()) break;
    if (!r.ok()) {
      if (auto held = self->pull_error_log_.admit(self->ctx_.rt.now(), static_cast<std::int64_t>(r.error().code))) {
        self->ctx_.rt.log().info("pull {} at {}: {}{}", mq.to_string(), pq->next_offset(), r.error().to_string(),
                                 held_back_note(*held));
      }
      co_await self->ctx_.rt.sleep(c.pull_delay_when_exception);
      continue;
    }
    switch (r->status) {
      case PullStatus::FOUND:
        pq->set_next_offset(r->next_begin_offset);
        pq->set_pulled_from(r->pulled_from_broker_id);
        self->ctx_.stats.pulled_messages += r->messages.size();
        pq->last_pull_time = self->ctx_.rt.now();
        if (self->ctx_.rates != nullptr) {
          self->ctx_.rates->pulled(mq.topic, static_cast<std::int64_t>(r->messages.size()), pq->last_pull_time - pull_began,
                                   pq->last_pull_time);
        }
        if (!r->messages.empty()) self->consume_.dispatch(pq, std::move(r->messages));
        break;
      case PullStatus::NO_NEW_MSG:
      case PullStatus::NO_MATCHED_MSG:
        pq->set_next_offset(r->next_begin_offset);
        // Nothing cached: everything up to here is consumed (RocketMQ's correctTagsOffset).
        if (pq->cached_count() == 0) self->ctx_.offsets.update(mq, r->next_begin_offset, true);
        break;
      case PullStatus::OFFSET_ILLEGAL: {
        if (auto held = self->offset_illegal_log_.admit(self->ctx_.rt.now())) {
          self->ctx_.rt.log().warn("pull {}: offset {} illegal, the broker suggests {}; dropping the queue{}",
                                   mq.to_string(), pq->next_offset(), r->next_begin_offset, held_back_note(*held));
        }
        pq->drop();
        ++self->ctx_.stats.offsets_moved;
        const QueueOffset next = r->next_begin_offset;
        co_await self->ctx_.rt.sleep(c.pull_delay_when_offset_illegal);
        self->ctx_.offsets.update(mq, next, false);
        co_await self->ctx_.offsets.persist(mq);
        self->ctx_.offsets.remove(mq);
        self->forget_(pq);  // the next rebalance takes it up again from `next`
        co_return;
      }
    }
    if (c.pull_interval > Duration::zero()) co_await self->ctx_.rt.sleep(c.pull_interval);
  }
}

}  // namespace ferry::client
