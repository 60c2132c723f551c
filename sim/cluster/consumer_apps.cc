#include "sim/cluster/consumer_apps.h"

#include <fmt/format.h>

#include <set>

#include "client/reply_message.h"
#include "common/pop_receipt.h"
#include "runtime/assert.h"
#include "sim/cluster/workload.h"

namespace ferry::sim::cluster {

// ---- DeliveryLog ---------------------------------------------------------------------------

DeliveryLog::DeliveryLog(Runtime& rt, std::shared_ptr<sim::History> history, std::string consumer, std::string group)
    : rt_(rt), history_(std::move(history)), consumer_(std::move(consumer)), group_(std::move(group)) {}

sim::ConsumeRecord DeliveryLog::delivery(const MessageExt& m, const MessageQueue& queue) const {
  sim::ConsumeRecord c;
  c.consumer = consumer_;
  c.group = group_;
  c.topic = m.topic;
  c.queue = queue;
  c.queue_offset = m.queue_offset;
  c.reconsume_times = m.reconsume_times;
  c.at = rt_.now();
  if (auto f = parse_body(as_text(Bytes(m.body.data(), m.body.size())))) {
    c.intact = true;
    c.producer = std::move(f->producer);
    c.seq = f->seq;
    c.key = std::move(f->key);
  }
  return c;
}

void DeliveryLog::record(const std::vector<MessageExt>& msgs, const MessageQueue& queue, std::int64_t pulled_from,
                         std::optional<MonoTime> lock_at) {
  const auto held = history_->hold();
  for (const MessageExt& m : msgs) {
    sim::ConsumeRecord c = delivery(m, queue);
    c.pulled_from = pulled_from;
    c.lock_at = lock_at;
    history_->consumes.push_back(std::move(c));
  }
}

std::uint64_t DeliveryLog::record_pop(const MessageExt& m, const MessageQueue& queue, QueueOffset offset, sim::PopDelivery pop) {
  const auto held = history_->hold();
  sim::ConsumeRecord c = delivery(m, queue);
  c.queue_offset = offset;
  c.pop = pop;
  history_->consumes.push_back(std::move(c));
  return history_->consumes.size() - 1;
}

std::uint64_t DeliveryLog::begin_pop_ack(std::uint64_t consume) {
  const auto held = history_->hold();
  sim::PopAckRecord ack;
  ack.consume = consume;
  ack.sent_at = rt_.now();
  ack.done_at = ack.sent_at;
  ack.detail = "unanswered";
  history_->pop_acks.push_back(std::move(ack));
  return history_->pop_acks.size() - 1;
}

void DeliveryLog::finish_pop_ack(std::uint64_t ack, const Status& answer) {
  const auto held = history_->hold();
  sim::PopAckRecord& a = history_->pop_acks.at(ack);
  a.done_at = rt_.now();
  a.ok = answer.ok();
  a.detail = answer.ok() ? "" : answer.error().to_string();
}

void DeliveryLog::retaken(const MessageQueue& queue) {
  // The queue restarts from its committed offset: this explains the redelivery that follows
  // (checker queue-offsets).
  history_->record_event(rt_.now(), sim::EventKind::rebalance, consumer_, "took " + queue.to_string() + " again");
}

void DeliveryLog::note_process_queue(const MessageQueue& queue, const std::shared_ptr<const client::ProcessQueue>& now) {
  auto [it, fresh] = process_queues_.emplace(queue, now);
  const bool same = !it->second.owner_before(now) && !now.owner_before(it->second) && !it->second.expired();
  if (!fresh && !same) {
    retaken(queue);
    it->second = now;
  }
}

void DeliveryLog::note_assignment(const std::vector<MessageQueue>& held) {
  std::set<MessageQueue> now(held.begin(), held.end());
  for (const MessageQueue& q : now) {
    if (held_.count(q) == 0 && !ever_held_.insert(q).second) retaken(q);
  }
  held_ = std::move(now);
}

namespace {

std::string describe_start(const ConsumerSpec& spec, const char* kind) {
  const bool broadcast = spec.config.message_model == client::MessageModel::BROADCASTING;
  return fmt::format("{} consumer started in {}{}", kind, spec.group, broadcast ? " (broadcasting)" : "");
}

client::MessageSelector selector_of(const ConsumerSpec& spec) {
  return spec.sql.empty() ? client::MessageSelector::by_tag(spec.expression) : client::MessageSelector::by_sql(spec.sql);
}

void record_start(Runtime& rt, sim::History& h, const std::string& name, const ConsumerSpec& spec, const char* kind) {
  const auto held = h.hold();
  h.record_event(rt.now(), sim::EventKind::start, name, describe_start(spec, kind));
  h.subscriptions[spec.group].insert(spec.topic);
  sim::ConsumerInfo info;
  info.group = spec.group;
  info.topic = spec.topic;
  info.broadcast = spec.config.message_model == client::MessageModel::BROADCASTING;
  info.kind = kind;
  info.sql = spec.sql;
  h.record_consumer(rt.now(), name, std::move(info));
}

}  // namespace

// ---- PushConsumerApp -----------------------------------------------------------------------

PushConsumerApp::PushConsumerApp(Runtime& rt, const client::ClientConfig& cc, const ConsumerSpec& spec, bool orderly,
                                 std::shared_ptr<sim::History> history) {
  const std::string name = cc.instance_name;
  log_ = std::make_shared<DeliveryLog>(rt, history, name, spec.group);
  client::PushConsumerConfig config = spec.config;
  config.group = spec.group;
  instance_ = std::make_unique<client::ClientInstance>(rt, cc);
  instance_->start();
  consumer_ = std::make_unique<client::PushConsumer>(*instance_, config);
  const Status sub = consumer_->subscribe(spec.topic, selector_of(spec));
  FERRY_ASSERT(sub.ok(), "subscribe {}: {}", spec.topic, sub.ok() ? "" : sub.error().to_string());
  record_start(rt, *history, name, spec, orderly ? "push-orderly" : "push-concurrently");
  client::PushConsumer* pc = consumer_.get();
  std::shared_ptr<DeliveryLog> log = log_;
  if (orderly) {
    consumer_->set_listener([log, pc](const std::vector<MessageExt>& msgs, client::ConsumeOrderlyContext& ctx) {
      std::shared_ptr<const client::ProcessQueue> pq = pc->process_queue(ctx.queue);
      log->note_process_queue(ctx.queue, pq);
      // Clustering: the listener runs only under the queue's broker lock; when it was confirmed
      // bounds the time this consumer has held the queue as its own (checker orderly-exclusive).
      std::optional<MonoTime> lock_at;
      if (pq != nullptr && pc->clustering()) lock_at = pq->last_lock_time();
      log->record(msgs, ctx.queue, pq ? pq->pulled_from() : -1, lock_at);
      return client::ConsumeOrderlyStatus::SUCCESS;
    });
  } else {
    if (spec.replies) {
      client::ProducerConfig reply_config;
      reply_config.group = spec.group + "-replies";
      replier_ = std::make_shared<Replier>(Replier{rt, spec.replies->body, std::make_unique<client::Producer>(*instance_, reply_config), {}});
      const Status s = replier_->producer->start();
      FERRY_ASSERT(s.ok(), "replier {} did not start: {}", name, s.ok() ? "" : s.error().to_string());
    }
    consumer_->set_listener([log, pc, replier = replier_](const std::vector<MessageExt>& msgs, client::ConsumeConcurrentlyContext& ctx) {
      std::shared_ptr<const client::ProcessQueue> pq = pc->process_queue(ctx.queue);
      log->note_process_queue(ctx.queue, pq);
      log->record(msgs, ctx.queue, pq ? pq->pulled_from() : -1);
      // The listener may run off the loop (production): the replies are sent from the loop.
      if (replier) replier->rt.executor().post([replier, msgs] { reply(replier, msgs); });
      return client::ConsumeConcurrentlyStatus::CONSUME_SUCCESS;
    });
  }
  const Status started = consumer_->start();
  FERRY_ASSERT(started.ok(), "consumer {} did not start: {}", name, started.ok() ? "" : started.error().to_string());
}

PushConsumerApp::~PushConsumerApp() {
  consumer_.reset();
  if (replier_) {
    replier_->alive = false;
    replier_->producer.reset();
  }
  instance_.reset();
}

void PushConsumerApp::reply(const std::shared_ptr<Replier>& r, const std::vector<MessageExt>& requests) {
  if (!r->alive) return;
  for (const MessageExt& request : requests) {
    std::vector<std::uint8_t> body = request.body;
    if (r->body == ConsumerSpec::Replies::Body::previous) std::swap(body, r->previous);
    if (body.empty()) body = r->previous;  // the first request has no previous one: answer it
    Result<Message> reply = client::create_reply_message(request, std::move(body));
    if (!reply.ok()) {
      r->rt.log().warn("no reply to {}: {}", request.msg_id(), reply.error().to_string());
      continue;
    }
    // A reply lost on the way is the requester's timeout (RocketMQ does not send it again).
    r->producer->send_async(*std::move(reply), [](Result<client::SendResult>) {});
  }
}

std::vector<MessageQueue> PushConsumerApp::held_queues() const {
  std::vector<MessageQueue> out;
  for (const MessageQueue& q : consumer_->held_queues()) {
    if (consumer_->orderly() && consumer_->clustering()) {
      std::shared_ptr<const client::ProcessQueue> pq = consumer_->process_queue(q);
      if (pq == nullptr || !pq->locked()) continue;  // taken, but not (yet) locked at the broker
    }
    out.push_back(q);
  }
  return out;
}

// ---- LitePullConsumerApp -------------------------------------------------------------------

LitePullConsumerApp::LitePullConsumerApp(Runtime& rt, const client::ClientConfig& cc, const ConsumerSpec& spec,
                                         std::shared_ptr<sim::History> history)
    : rt_(rt), rewind_every_(spec.rewind_every), last_rewind_(rt.now()) {
  const std::string name = cc.instance_name;
  log_ = std::make_shared<DeliveryLog>(rt, history, name, spec.group);
  client::LitePullConsumerConfig config;
  config.group = spec.group;
  config.message_model = spec.config.message_model;
  config.consume_from_where = spec.config.consume_from_where;
  config.consume_timestamp_ms = spec.config.consume_timestamp_ms;
  config.allocate_strategy = spec.config.allocate_strategy;
  config.offset_store_dir = spec.config.offset_store_dir;
  instance_ = std::make_unique<client::ClientInstance>(rt, cc);
  instance_->start();
  consumer_ = std::make_unique<client::LitePullConsumer>(*instance_, config);
  const Status sub = consumer_->subscribe(spec.topic, selector_of(spec));
  FERRY_ASSERT(sub.ok(), "subscribe {}: {}", spec.topic, sub.ok() ? "" : sub.error().to_string());
  record_start(rt, *history, name, spec, "lite-pull");
  const Status started = consumer_->start();
  FERRY_ASSERT(started.ok(), "lite pull consumer {} did not start: {}", name, started.ok() ? "" : started.error().to_string());
  // In the node's task set: a crash destroys the loop before the app.
  rt.spawn(run(this), "workload-lite-pull");
}

LitePullConsumerApp::~LitePullConsumerApp() {
  consumer_.reset();
  instance_.reset();
}

Task<void> LitePullConsumerApp::run(LitePullConsumerApp* self) {
  for (;;) {
    const MonoTime before = self->rt_.now();
    std::vector<MessageExt> batch = co_await self->consumer_->poll(kPollTimeout);
    self->log_->note_assignment(self->consumer_->assignment());
    if (batch.empty()) {
      // A poll that returned at once with nothing (the consumer not running): no busy loop.
      if (self->rt_.now() == before) co_await self->rt_.sleep(kPollTimeout);
      continue;
    }
    const std::optional<MessageQueue>& queue = self->consumer_->last_polled_queue();
    FERRY_ASSERT(queue.has_value(), "poll returned {} messages but names no queue", batch.size());
    self->log_->record(batch, *queue);
    if (self->rewind_every_ && self->rt_.now() - self->last_rewind_ >= *self->rewind_every_) {
      // ConsumerSpec::rewind_every: back a few offsets before the batch's last, silently.
      self->last_rewind_ = self->rt_.now();
      const std::int64_t back = std::max<std::int64_t>(0, batch.back().queue_offset.value() - 3);
      (void)co_await self->consumer_->seek(*queue, QueueOffset(back));
    }
  }
}

// ---- PopConsumerApp ------------------------------------------------------------------------

PopConsumerApp::PopConsumerApp(Runtime& rt, const client::ClientConfig& cc, const ConsumerSpec& spec,
                               std::shared_ptr<sim::History> history)
    : rt_(rt), group_(spec.group), topic_(spec.topic), pop_(spec.pop.value_or(ConsumerSpec::Pop{})) {
  const std::string name = cc.instance_name;
  log_ = std::make_shared<DeliveryLog>(rt, history, name, spec.group);
  client::PopConsumerConfig config;
  config.group = spec.group;
  config.max_messages = pop_.batch;
  config.invisible_time = pop_.invisible_time;
  // Short long polls: the receives go round the topic's brokers one at a time, and one with
  // nothing holds the next for its whole poll time.
  config.poll_time = std::chrono::seconds(1);
  config.from_first = spec.config.consume_from_where == client::ConsumeFromWhere::CONSUME_FROM_FIRST_OFFSET;
  config.fifo = pop_.fifo && pop_.ask_order;
  instance_ = std::make_unique<client::ClientInstance>(rt, cc);
  instance_->start();
  consumer_ = std::make_unique<client::PopConsumer>(*instance_, config);
  const Status sub = consumer_->subscribe(spec.topic, selector_of(spec));
  FERRY_ASSERT(sub.ok(), "subscribe {}: {}", spec.topic, sub.ok() ? "" : sub.error().to_string());
  record_start(rt, *history, name, spec, pop_.fifo ? "pop-fifo" : "pop");
  // In the node's task set: a crash destroys the loops before the app.
  for (int i = 0; i < kReceivers; ++i) rt.spawn(run(this), "workload-pop");
}

PopConsumerApp::~PopConsumerApp() {
  consumer_.reset();
  instance_.reset();
}

MessageQueue PopConsumerApp::queue_of(const ReceiptHandle& h) const {
  return MessageQueue{pop_real_topic(topic_, group_, h.retry), h.broker_name, QueueId(h.queue_id)};
}

Task<void> PopConsumerApp::run(PopConsumerApp* self) {
  Runtime& rt = self->rt_;
  for (;;) {
    const MonoTime before = rt.now();
    Result<client::PopResult> r = co_await self->consumer_->receive(self->topic_);
    if (!r.ok() || r->status != client::PopStatus::FOUND) {
      // An error or a full broker waits; an empty long poll goes again at once (it waited already).
      if (!r.ok() || r->status == client::PopStatus::POLLING_FULL || rt.now() == before) co_await rt.sleep(kRetryWait);
      continue;
    }
    // The whole batch is recorded as it arrived, then acknowledged one by one.
    const sim::PopDelivery pop{r->sent_at, r->sent_at + self->pop_.invisible_time, r->pop_time};
    std::vector<std::uint64_t> indexes;
    for (const MessageExt& m : r->messages) {
      Result<ReceiptHandle> h = client::receipt_handle_of(m);
      FERRY_ASSERT(h.ok(), "a received message without a receipt handle: {}", h.ok() ? "" : h.error().to_string());
      indexes.push_back(self->log_->record_pop(m, self->queue_of(*h), QueueOffset(h->queue_offset), pop));
    }
    // FIFO: a queue whose message was left is not acknowledged further in this batch (an ordered
    // application stops at the message it failed; the broker hands the rest out again with it).
    std::set<std::int32_t> stopped;
    for (std::size_t i = 0; i < r->messages.size(); ++i) {
      const std::int32_t queue_id = r->messages[i].queue_id.value();
      if (self->pop_.fifo && stopped.count(queue_id) > 0) continue;
      if (rt.random().below(100) >= static_cast<std::uint64_t>(self->pop_.ack_percent)) {  // left to come back
        stopped.insert(queue_id);
        continue;
      }
      const std::uint64_t ack = self->log_->begin_pop_ack(indexes[i]);
      Status acked = co_await self->consumer_->ack(r->messages[i]);
      self->log_->finish_pop_ack(ack, acked);
    }
  }
}

}  // namespace ferry::sim::cluster
