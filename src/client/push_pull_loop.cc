// PushConsumer: the pull loop of one held queue (RocketMQ's DefaultMQPushConsumerImpl.pullMessage
// and its PullCallback), and the hand-off of pulled messages to the consume service.
#include <fmt/format.h>

#include "client/push_consumer.h"

namespace ferry::client {

Task<void> PushConsumer::pull_loop(PushConsumer* self, std::shared_ptr<ProcessQueue> pq) {
  const PushConsumerConfig& c = self->config_;
  const MessageQueue mq = pq->queue();
  while (self->running_ && !pq->dropped()) {
    if (self->orderly() && self->clustering() && !pq->locked()) {
      co_await self->rt_.sleep(c.pull_delay_when_exception);  // RocketMQ: wait for the lock
      continue;
    }
    const bool too_many = pq->cached_count() > c.pull_threshold_for_queue;
    const bool too_big = pq->cached_body_bytes() > c.pull_threshold_size_for_queue_bytes;
    const bool too_wide = !self->orderly() && pq->span() > c.consume_concurrently_max_span;
    if (too_many || too_big || too_wide) {
      ++self->stats_.flow_controlled;
      co_await self->rt_.sleep(c.pull_delay_when_flow_control);
      continue;
    }
    auto sub = self->subscriptions_.find(mq.topic);
    if (sub == self->subscriptions_.end()) {  // unsubscribed meanwhile: the rebalance drops it
      co_await self->rt_.sleep(c.pull_delay_when_exception);
      continue;
    }
    PullRequest req;
    req.group = c.group;
    req.queue = mq;
    req.offset = pq->next_offset();
    req.max_nums = c.pull_batch_size;
    req.sub_expression = sub->second.data.sub_string;
    req.suspend = c.broker_suspend_max;
    req.timeout = c.pull_timeout_when_suspend;
    if (self->clustering()) {
      std::optional<QueueOffset> committed = self->offsets_->read_memory(mq);
      if (committed && committed->value() > 0) req.commit_offset = committed;
    }
    ++self->stats_.pulls;
    Task<Result<PullResult>> pt = self->pull_api_.pull(std::move(req));
    Result<PullResult> r = co_await std::move(pt);
    if (!self->running_ || pq->dropped()) break;
    if (!r.ok()) {
      self->rt_.log().info("pull {} at {}: {}", mq.to_string(), pq->next_offset(), r.error().to_string());
      co_await self->rt_.sleep(c.pull_delay_when_exception);
      continue;
    }
    switch (r->status) {
      case PullStatus::FOUND:
        pq->set_next_offset(r->next_begin_offset);
        self->stats_.pulled_messages += r->messages.size();
        if (!r->messages.empty()) self->dispatch(pq, std::move(r->messages));
        break;
      case PullStatus::NO_NEW_MSG:
      case PullStatus::NO_MATCHED_MSG:
        pq->set_next_offset(r->next_begin_offset);
        // Nothing cached: everything up to here is consumed (RocketMQ's correctTagsOffset).
        if (pq->cached_count() == 0) self->offsets_->update(mq, r->next_begin_offset, true);
        break;
      case PullStatus::OFFSET_ILLEGAL: {
        self->rt_.log().warn("pull {}: offset {} illegal, the broker suggests {}; dropping the queue", mq.to_string(),
                             pq->next_offset(), r->next_begin_offset);
        pq->drop();
        const QueueOffset next = r->next_begin_offset;
        co_await self->rt_.sleep(c.pull_delay_when_offset_illegal);
        self->offsets_->update(mq, next, false);
        co_await self->offsets_->persist(mq);
        self->offsets_->remove(mq);
        self->erase_if_same(pq);  // the next rebalance takes it up again from `next`
        co_return;
      }
    }
    if (c.pull_interval > Duration::zero()) co_await self->rt_.sleep(c.pull_interval);
  }
}

void PushConsumer::dispatch(const std::shared_ptr<ProcessQueue>& pq, std::vector<MessageExt> msgs) {
  if (orderly()) {
    if (pq->put(std::move(msgs))) enqueue(ConsumeRequest{pq, {}});
    return;
  }
  const auto batch = static_cast<std::size_t>(config_.consume_message_batch_max_size);
  std::vector<MessageExt> copy = msgs;
  (void)pq->put(std::move(copy));
  for (std::size_t i = 0; i < msgs.size(); i += batch) {
    const std::size_t end = std::min(msgs.size(), i + batch);
    ConsumeRequest r{pq, {}};
    r.msgs.assign(std::make_move_iterator(msgs.begin() + static_cast<std::ptrdiff_t>(i)),
                  std::make_move_iterator(msgs.begin() + static_cast<std::ptrdiff_t>(end)));
    enqueue(std::move(r));
  }
}

}  // namespace ferry::client
