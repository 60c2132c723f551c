// PushConsumer (push_consumer.h): the façade — lifecycle, subscriptions, the ConsumerHandle
// side, offsets persistence, and the wiring of its three jobs.
#include "client/push_consumer.h"

#include <fmt/format.h>

#include "client/client_errors.h"
#include "client/local_offset_store.h"
#include "client/remote_offset_store.h"
#include "client/trace_dispatcher.h"
#include "common/names.h"

namespace ferry::client {

namespace {
constexpr Duration kDefaultTimestampBack = std::chrono::minutes(30);
}  // namespace

PushConsumer::PushConsumer(ClientInstance& instance, PushConsumerConfig config)
    : ci_(instance),
      rt_(instance.runtime()),
      config_(std::move(config)),
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
  return subscribe(topic, MessageSelector::by_tag(expression));
}

Status PushConsumer::subscribe(const std::string& topic, const MessageSelector& selector) {
  if (started_) return Error(Errc::invalid_argument, "subscribe() after start()");
  FERRY_TRY(validate_topic(topic));
  auto data = subscription_data(topic, selector, rt_.wall_ms());
  if (!data.ok()) return with_context(fmt::format("subscribe to '{}'", topic), std::move(data).error());
  subscriptions_[topic] = Subscription{std::move(*data)};
  return {};
}

void PushConsumer::set_listener(ConcurrentListener listener) {
  FERRY_ASSERT(!started_, "set_listener after start() of consumer group {}", config_.group);
  FERRY_ASSERT(static_cast<bool>(listener), "set_listener with an empty concurrent listener (group {})", config_.group);
  concurrent_listener_ = std::make_shared<const ConcurrentListener>(std::move(listener));
  orderly_listener_.reset();
}

void PushConsumer::set_listener(OrderlyListener listener) {
  FERRY_ASSERT(!started_, "set_listener after start() of consumer group {}", config_.group);
  FERRY_ASSERT(static_cast<bool>(listener), "set_listener with an empty orderly listener (group {})", config_.group);
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
  if (config_.enable_msg_trace && !trace_) {
    trace_ = start_trace(ci_, config_.group, TraceRole::consume, config_.trace_topic, "push consumer");
  }
  build_jobs(config_.consume_timestamp_ms.value_or(rt_.wall_ms() - to_ms(kDefaultTimestampBack)));
  started_ = true;
  running_ = true;
  ci_.start();
  consume_->start_workers();
  tasks_.spawn(start_task(this), "consumer-start");
  rebalance_->start();
  consume_->start_timeout_loop();
  rt_.log().info("push consumer of group '{}' started ({}, {}, {})", config_.group, name(config_.message_model),
                 orderly() ? "orderly" : "concurrently", name(config_.allocate_strategy));
  return {};
}

void PushConsumer::build_jobs(WallMs consume_timestamp_ms) {
  std::vector<std::string> subscribed;
  for (const auto& [topic, s] : subscriptions_) subscribed.push_back(topic);
  rates_ = std::make_unique<ConsumeRates>(subscribed);
  start_timestamp_ms_ = rt_.wall_ms();
  const PushContext ctx{.ci = ci_, .rt = rt_, .config = config_, .offsets = *offsets_, .tasks = tasks_,
                        .stats = stats_, .orderly = orderly(), .rates = rates_.get(),
                        .trace = trace_.get()};
  // The links point back through this object: each job is built before the one that serves it.
  ConsumeService::Links links;
  links.lock = [this](MessageQueue mq) { return rebalance_->lock_one(std::move(mq)); };
  links.held = [this] { return rebalance_->held(); };
  consume_ = std::make_unique<ConsumeService>(ctx, concurrent_listener_, orderly_listener_, std::move(links));
  std::map<std::string, MessageSelector> selectors;
  std::vector<std::string> topics;
  for (const auto& [topic, s] : subscriptions_) {
    selectors.emplace(topic, selector_of(s.data));
    topics.push_back(topic);
  }
  PullService::Forget forget = [this](const std::shared_ptr<ProcessQueue>& pq) { rebalance_->forget(pq); };
  pull_ = std::make_unique<PullService>(ctx, std::move(selectors), *consume_, std::move(forget));
  rebalance_ = std::make_unique<PushRebalance>(ctx, std::move(topics), consume_timestamp_ms, *pull_);
}

Task<void> PushConsumer::shutdown() {
  if (!started_ || !running_) co_return;
  running_ = false;
  consume_->stop();
  pull_->stop();
  rebalance_->stop();
  co_await rebalance_->release_all();
  co_await ci_.unregister_consumer(config_.group);
  if (trace_) co_await trace_->shutdown();
  rebalance_->clear();
  consume_->clear();
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
  rebalance_->rebalance_soon();
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

Task<void> PushConsumer::rebalance() {
  if (rebalance_ == nullptr) co_return;  // not started
  co_await rebalance_->rebalance();
}

Task<void> PushConsumer::lock_all() {
  if (rebalance_ == nullptr) co_return;  // not started
  co_await rebalance_->lock_all();
}

Task<void> PushConsumer::persist_task(PushConsumer* self) {
  co_await self->persist_offsets();
  self->persisting_ = false;
}

Task<void> PushConsumer::persist_offsets() { co_await offsets_->persist_all(held_queues()); }

std::vector<MessageQueue> PushConsumer::held_queues() const {
  return rebalance_ == nullptr ? std::vector<MessageQueue>() : rebalance_->held_queues();
}

std::shared_ptr<const ProcessQueue> PushConsumer::process_queue(const MessageQueue& mq) const {
  return rebalance_ == nullptr ? nullptr : rebalance_->process_queue(mq);
}

}  // namespace ferry::client
