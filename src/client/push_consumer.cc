// PushConsumer: lifecycle, subscriptions, rebalance and the queue table, offsets and locks.
#include "client/push_consumer.h"

#include <fmt/format.h>

#include <algorithm>

#include "client/client_errors.h"
#include "client/consumer_calls.h"
#include "client/local_offset_store.h"
#include "client/rebalance.h"
#include "client/remote_offset_store.h"
#include "common/names.h"

namespace ferry::client {

namespace {
constexpr Duration kFirstLockDelay = std::chrono::seconds(1);
constexpr Duration kDefaultTimestampBack = std::chrono::minutes(30);
}  // namespace

PushConsumer::PushConsumer(ClientInstance& instance, PushConsumerConfig config)
    : ci_(instance),
      rt_(instance.runtime()),
      config_(std::move(config)),
      pull_api_(instance),
      work_(instance.runtime().executor()),
      tasks_(instance.runtime()) {
  config_.check();
  if (clustering()) {
    offsets_ = std::make_unique<RemoteOffsetStore>(ci_, config_.group);
  } else {
    offsets_ = std::make_unique<LocalOffsetStore>(rt_, config_.offset_store_dir, ci_.client_id(), config_.group);
  }
}

PushConsumer::~PushConsumer() {
  tasks_.destroy_all();
  ci_.forget_consumer(config_.group, this);
}

Status PushConsumer::subscribe(const std::string& topic, const std::string& expression) {
  if (started_) return Error(Errc::invalid_argument, "subscribe() after start()");
  FERRY_TRY(validate_topic(topic));
  Result<TagSubscription> filter = parse_tag_expression(expression);
  if (!filter.ok()) return with_context(fmt::format("subscribe to '{}'", topic), std::move(filter).error());
  Subscription s;
  s.data.topic = topic;
  s.data.sub_string = filter->all ? std::string(kSubscribeAll) : expression;
  s.data.tags_set = filter->tags;
  s.data.code_set = filter->codes;
  s.data.sub_version = rt_.wall_ms();
  s.filter = std::move(*filter);
  subscriptions_[topic] = std::move(s);
  return {};
}

void PushConsumer::set_listener(ConcurrentListener listener) {
  FERRY_ASSERT(!started_ && listener, "set_listener: after start() or empty");
  concurrent_listener_ = std::make_shared<const ConcurrentListener>(std::move(listener));
  orderly_listener_.reset();
}

void PushConsumer::set_listener(OrderlyListener listener) {
  FERRY_ASSERT(!started_ && listener, "set_listener: after start() or empty");
  orderly_listener_ = std::make_shared<const OrderlyListener>(std::move(listener));
  concurrent_listener_.reset();
}

Status PushConsumer::start() {
  if (started_) return Error(Errc::invalid_argument, fmt::format("consumer of group '{}' started twice", config_.group));
  if (subscriptions_.empty()) return Error(Errc::invalid_argument, fmt::format("consumer group '{}' subscribes to nothing", config_.group));
  if (!concurrent_listener_ && !orderly_listener_) {
    return Error(Errc::invalid_argument, fmt::format("consumer group '{}' has no listener", config_.group));
  }
  FERRY_TRY(validate_group(config_.group));
  if (clustering()) {
    Status s = subscribe(retry_topic(config_.group), std::string(kSubscribeAll));
    FERRY_TRY(s);
  }
  FERRY_TRY(offsets_->load());
  FERRY_TRY(ci_.register_consumer(config_.group, this));
  consume_timestamp_ms_ = config_.consume_timestamp_ms.value_or(rt_.wall_ms() - to_ms(kDefaultTimestampBack));
  started_ = true;
  running_ = true;
  ci_.start();
  for (std::int32_t i = 0; i < config_.consume_threads; ++i) tasks_.spawn(worker(this), "consumer-worker");
  tasks_.spawn(start_task(this), "consumer-start");
  if (orderly() && clustering()) tasks_.spawn(lock_loop(this), "consumer-lock");
  if (!orderly() && clustering()) tasks_.spawn(clean_expired_loop(this), "consumer-clean-expired");
  rt_.log().info("push consumer of group '{}' started ({}, {}, {})", config_.group, name(config_.message_model),
                 orderly() ? "orderly" : "concurrently", name(config_.allocate_strategy));
  return {};
}

Task<void> PushConsumer::shutdown() {
  if (!started_ || !running_) co_return;
  running_ = false;
  work_.notify_all();
  std::vector<MessageQueue> held = held_queues();
  for (auto& [mq, pq] : queues_) pq->drop();
  co_await offsets_->persist_all(held);
  if (orderly() && clustering()) {
    std::map<std::string, std::vector<MessageQueue>> by_broker;
    for (const MessageQueue& mq : held) by_broker[mq.broker_name].push_back(mq);
    for (auto& [broker, mqs] : by_broker) {
      Status s = co_await unlock_batch(ci_, config_.group, broker, mqs, false);
      if (!s.ok()) rt_.log().info("unlock at shutdown: {}", s.error().to_string());
    }
  }
  co_await ci_.unregister_consumer(config_.group);
  queues_.clear();
  pending_.clear();
  rt_.log().info("push consumer of group '{}' shut down", config_.group);
  tasks_.destroy_all();
}

// ---- ConsumerHandle ---------------------------------------------------------------------------

remoting::body::ConsumerData PushConsumer::consumer_data() const {
  remoting::body::ConsumerData d;
  d.group_name = config_.group;
  d.consume_type = remoting::body::ConsumeType::CONSUME_PASSIVELY;
  d.message_model = config_.message_model;
  d.consume_from_where = config_.consume_from_where;
  for (const auto& [topic, s] : subscriptions_) d.subscription_data_set.push_back(s.data);
  return d;
}

void PushConsumer::on_subscribe_queues_changed(const std::string& topic, const std::vector<MessageQueue>& queues) {
  (void)topic;
  (void)queues;
  rebalance_soon();
}

void PushConsumer::rebalance_soon() {
  if (!running_) return;
  if (rebalancing_) {
    rebalance_again_ = true;
    return;
  }
  rebalancing_ = true;
  tasks_.spawn(rebalance_task(this), "consumer-rebalance");
}

void PushConsumer::persist_offsets_soon() {
  if (!running_ || persisting_) return;
  persisting_ = true;
  tasks_.spawn(persist_task(this), "consumer-persist");
}

Task<void> PushConsumer::start_task(PushConsumer* self) {
  // RocketMQ's start: routes of the subscriptions, a heartbeat, then a rebalance at once.
  std::vector<std::string> topics;
  for (const auto& [topic, s] : self->subscriptions_) topics.push_back(topic);
  for (const std::string& topic : topics) {
    Status st = co_await self->ci_.update_topic_route(topic);
    if (!st.ok()) self->rt_.log().info("consumer start: {}", st.error().to_string());
  }
  (void)co_await self->ci_.send_heartbeat_to_all();
  self->rebalance_soon();
}

Task<void> PushConsumer::rebalance_task(PushConsumer* self) {
  do {
    self->rebalance_again_ = false;
    co_await self->rebalance_round();
  } while (self->rebalance_again_ && self->running_);
  self->rebalancing_ = false;
}

Task<void> PushConsumer::rebalance() {
  if (rebalancing_) {
    rebalance_again_ = true;
    co_return;
  }
  rebalancing_ = true;
  co_await rebalance_task(this);
}

Task<void> PushConsumer::persist_task(PushConsumer* self) {
  co_await self->persist_offsets();
  self->persisting_ = false;
}

Task<void> PushConsumer::persist_offsets() { co_await offsets_->persist_all(held_queues()); }

// ---- rebalance ---------------------------------------------------------------------------------

Task<void> PushConsumer::rebalance_round() {
  ++stats_.rebalances;
  std::vector<std::string> topics;
  for (const auto& [topic, s] : subscriptions_) topics.push_back(topic);
  for (const std::string& topic : topics) {
    if (!running_) co_return;
    AllocationRequest req{config_.group, topic, config_.message_model, config_.allocate_strategy};
    Task<Result<std::vector<MessageQueue>>> at = allocated_queues(ci_, std::move(req));
    Result<std::vector<MessageQueue>> allocated = co_await std::move(at);
    if (!allocated.ok()) {
      rt_.log().info("rebalance of group '{}', topic '{}': {}", config_.group, topic, allocated.error().to_string());
      continue;
    }
    co_await update_queue_table(topic, std::move(*allocated));
  }
}

Task<void> PushConsumer::update_queue_table(std::string topic, std::vector<MessageQueue> allocated) {
  std::sort(allocated.begin(), allocated.end());
  // Give up what is no longer ours.
  std::vector<std::shared_ptr<ProcessQueue>> gone;
  for (const auto& [mq, pq] : queues_) {
    if (mq.topic == topic && !std::binary_search(allocated.begin(), allocated.end(), mq)) gone.push_back(pq);
  }
  for (const auto& pq : gone) {
    const bool removed = co_await remove_queue(pq);
    if (removed) {
      erase_if_same(pq);
      rt_.log().info("group '{}' gave up {}", config_.group, pq->queue().to_string());
    }
  }
  // Take up what is new.
  for (const MessageQueue& mq : allocated) {
    if (!running_) co_return;
    if (queues_.count(mq) != 0) continue;
    const bool need_lock = orderly() && clustering();
    if (need_lock) {
      const bool locked = co_await lock_one(mq);
      if (!locked) {
        rt_.log().info("group '{}': {} is locked by another client; not taken this round", config_.group, mq.to_string());
        continue;
      }
    }
    offsets_->remove(mq);  // RocketMQ's removeDirtyOffset
    StartOffsetRequest sreq{mq, config_.consume_from_where, consume_timestamp_ms_};
    Task<Result<QueueOffset>> st = start_offset(ci_, *offsets_, std::move(sreq));
    Result<QueueOffset> start = co_await std::move(st);
    if (!start.ok()) {
      rt_.log().warn("group '{}': no start offset for {}: {}", config_.group, mq.to_string(), start.error().to_string());
      continue;
    }
    if (!running_ || queues_.count(mq) != 0) continue;
    auto pq = std::make_shared<ProcessQueue>(mq, *start);
    if (need_lock) {
      pq->set_locked(true, rt_.now());
      pq->set_previously_locked();
    }
    queues_.emplace(mq, pq);
    rt_.log().info("group '{}' took {} from offset {}", config_.group, mq.to_string(), *start);
    tasks_.spawn(pull_loop(this, pq), "consumer-pull");
  }
}

Task<bool> PushConsumer::remove_queue(std::shared_ptr<ProcessQueue> pq) {
  pq->drop();
  const bool orderly_clustering = orderly() && clustering();
  // An orderly queue whose listener runs keeps its lock until the call ends (next round).
  if (orderly_clustering && pq->in_listener > 0) co_return false;
  const MessageQueue mq = pq->queue();
  co_await offsets_->persist(mq);
  offsets_->remove(mq);
  if (orderly_clustering) {
    std::vector<MessageQueue> one{mq};
    Status s = co_await unlock_batch(ci_, config_.group, mq.broker_name, std::move(one), true);
    if (!s.ok()) rt_.log().info("unlock {}: {}", mq.to_string(), s.error().to_string());
  }
  co_return true;
}

void PushConsumer::erase_if_same(const std::shared_ptr<ProcessQueue>& pq) {
  auto it = queues_.find(pq->queue());
  if (it != queues_.end() && it->second == pq) queues_.erase(it);
}

std::vector<MessageQueue> PushConsumer::held_queues() const {
  std::vector<MessageQueue> out;
  for (const auto& [mq, pq] : queues_) out.push_back(mq);
  return out;
}

std::shared_ptr<const ProcessQueue> PushConsumer::process_queue(const MessageQueue& mq) const {
  auto it = queues_.find(mq);
  return it == queues_.end() ? nullptr : it->second;
}

// ---- orderly locks -----------------------------------------------------------------------------

Task<bool> PushConsumer::lock_one(MessageQueue mq) {
  std::vector<MessageQueue> one{mq};
  Result<std::vector<MessageQueue>> r = co_await lock_batch(ci_, config_.group, mq.broker_name, std::move(one));
  if (!r.ok()) {
    rt_.log().info("lock {}: {}", mq.to_string(), r.error().to_string());
    co_return false;
  }
  const bool locked = std::find(r->begin(), r->end(), mq) != r->end();
  auto it = queues_.find(mq);
  if (it != queues_.end()) it->second->set_locked(locked, rt_.now());
  co_return locked;
}

Task<void> PushConsumer::lock_all() {
  ++stats_.lock_rounds;
  std::map<std::string, std::vector<MessageQueue>> by_broker;
  for (const auto& [mq, pq] : queues_) by_broker[mq.broker_name].push_back(mq);
  for (auto& [broker, mqs] : by_broker) {
    const std::vector<MessageQueue> asked = mqs;
    Result<std::vector<MessageQueue>> r = co_await lock_batch(ci_, config_.group, broker, std::move(mqs));
    if (!r.ok()) {
      rt_.log().info("lock queues of broker '{}': {}", broker, r.error().to_string());
      continue;
    }
    for (const MessageQueue& mq : asked) {
      auto it = queues_.find(mq);
      if (it == queues_.end()) continue;
      const bool locked = std::find(r->begin(), r->end(), mq) != r->end();
      if (!locked && it->second->locked()) rt_.log().warn("group '{}' lost the lock of {}", config_.group, mq.to_string());
      it->second->set_locked(locked, rt_.now());
    }
  }
}

Task<void> PushConsumer::lock_loop(PushConsumer* self) {
  co_await self->rt_.sleep(kFirstLockDelay);
  while (self->running_) {
    co_await self->lock_all();
    co_await self->rt_.sleep(self->config_.lock_renew_interval);
  }
}

}  // namespace ferry::client
