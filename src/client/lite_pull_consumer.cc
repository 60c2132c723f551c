#include "client/lite_pull_consumer.h"

#include <fmt/format.h>

#include <algorithm>

#include "client/client_errors.h"
#include "client/consumer_calls.h"
#include "client/local_offset_store.h"
#include "client/rebalance.h"
#include "client/remote_offset_store.h"
#include "client/trace_dispatcher.h"
#include "common/names.h"
#include "common/tag_filter.h"

namespace ferry::client {

namespace {
constexpr Duration kDefaultTimestampBack = std::chrono::minutes(30);
}  // namespace

LitePullConsumer::LitePullConsumer(ClientInstance& instance, LitePullConsumerConfig config)
    : ci_(instance),
      rt_(instance.runtime()),
      config_(std::move(config)),
      pull_api_(instance),
      arrived_(instance.runtime()),
      tasks_(instance.runtime()) {
  config_.check();
  if (config_.message_model == MessageModel::CLUSTERING) {
    offsets_ = std::make_unique<RemoteOffsetStore>(ci_, config_.group);
  } else {
    offsets_ = std::make_unique<LocalOffsetStore>(rt_, config_.offset_store_dir, ci_.client_id(), config_.group);
  }
}

LitePullConsumer::~LitePullConsumer() {
  tasks_.destroy_all();
  ci_.forget_consumer(config_.group, this);
}

Status LitePullConsumer::subscribe(const std::string& topic, const std::string& expression) {
  return subscribe(topic, MessageSelector::by_tag(expression));
}

Status LitePullConsumer::subscribe(const std::string& topic, const MessageSelector& selector) {
  if (started_ || assigned_mode_) return Error(Errc::invalid_argument, "subscribe() after start() or assign()");
  FERRY_TRY(validate_topic(topic));
  auto data = subscription_data(topic, selector, rt_.wall_ms());
  if (!data.ok()) return with_context(fmt::format("subscribe to '{}'", topic), std::move(data).error());
  subscriptions_[topic] = std::move(*data);
  return {};
}

Status LitePullConsumer::assign(std::vector<MessageQueue> mqs) {
  if (!assigned_mode_ && !subscriptions_.empty()) return Error(Errc::invalid_argument, "assign() after subscribe()");
  if (mqs.empty()) return Error(Errc::invalid_argument, "assign() of no queue");
  assigned_mode_ = true;
  std::sort(mqs.begin(), mqs.end());
  for (const MessageQueue& mq : mqs) {
    if (subscriptions_.count(mq.topic) != 0) continue;
    remoting::body::SubscriptionData d;
    d.topic = mq.topic;
    d.sub_string = std::string(kSubscribeAll);
    d.sub_version = rt_.wall_ms();
    subscriptions_[mq.topic] = std::move(d);
  }
  if (!running_) {
    for (const MessageQueue& mq : mqs) take(mq);  // the loops start with start()
    return {};
  }
  std::vector<std::shared_ptr<QueueState>> gone;
  for (const auto& [mq, q] : queues_) {
    if (!std::binary_search(mqs.begin(), mqs.end(), mq)) gone.push_back(q);
  }
  for (const auto& q : gone) {
    queues_.erase(q->mq);
    tasks_.spawn(give_up(q), "lite-give-up");
  }
  for (const MessageQueue& mq : mqs) {
    if (queues_.count(mq) == 0) take(mq);
  }
  return {};
}

Status LitePullConsumer::start() {
  if (started_) return Error(Errc::invalid_argument, fmt::format("lite pull consumer of '{}' started twice", config_.group));
  if (subscriptions_.empty()) return Error(Errc::invalid_argument, fmt::format("group '{}': nothing subscribed or assigned", config_.group));
  FERRY_TRY(validate_group(config_.group));
  FERRY_TRY(offsets_->load());
  FERRY_TRY(ci_.register_consumer(config_.group, this));
  if (config_.enable_msg_trace && !trace_) {
    trace_ = start_trace(ci_, config_.group, TraceRole::consume, config_.trace_topic, "lite pull consumer");
  }
  started_ = true;
  running_ = true;
  next_auto_commit_ = rt_.now() + config_.auto_commit_interval;
  ci_.start();
  // Queues assigned before start() have no loop yet.
  for (const auto& [mq, q] : queues_) start_loop(q);
  tasks_.spawn(start_task(this), "lite-start");
  return {};
}

Task<void> LitePullConsumer::shutdown() {
  if (!running_) co_return;
  if (config_.auto_commit) co_await commit();
  running_ = false;
  std::vector<MessageQueue> held = assignment();
  for (auto& [mq, q] : queues_) q->dropped = true;
  co_await offsets_->persist_final(held);
  co_await ci_.unregister_consumer(config_.group);
  if (trace_) co_await trace_->shutdown();
  queues_.clear();
  cache_.clear();
  cached_msgs_ = 0;
  arrived_.wake();
  tasks_.destroy_all();
}

// ---- polling ------------------------------------------------------------------------------------

Task<std::vector<MessageExt>> LitePullConsumer::poll(Duration timeout) {
  const MonoTime deadline = rt_.now() + timeout;
  const std::string group_retry = retry_topic(config_.group);
  last_polled_.reset();
  while (running_) {
    if (config_.auto_commit && rt_.now() >= next_auto_commit_) co_await commit();
    for (auto it = cache_.begin(); it != cache_.end();) {
      const bool stale = it->q->dropped || it->generation != it->q->generation || it->msgs.empty();
      if (!stale && it->q->paused) {  // kept for after resume()
        ++it;
        continue;
      }
      Batch b = std::move(*it);
      it = cache_.erase(it);
      cached_msgs_ -= b.msgs.size();
      b.q->cached -= b.msgs.size();
      if (stale) continue;
      b.q->consumed = b.msgs.back().queue_offset + 1;
      last_polled_ = b.q->mq;
      for (MessageExt& m : b.msgs) {
        if (m.topic == group_retry) {
          if (auto original = m.retry_topic()) m.topic = std::string(*original);
        }
      }
      co_return std::move(b.msgs);
    }
    const Duration left = deadline - rt_.now();
    if (left <= Duration::zero()) break;
    (void)co_await arrived_.wait_for(left);
  }
  co_return std::vector<MessageExt>();
}

Task<void> LitePullConsumer::commit() {
  next_auto_commit_ = rt_.now() + config_.auto_commit_interval;
  for (const auto& [mq, q] : queues_) {
    if (q->consumed) offsets_->update(mq, *q->consumed, false);
  }
  co_await offsets_->persist_all(assignment());
}

Task<Status> LitePullConsumer::seek(MessageQueue mq, QueueOffset offset) {
  auto it = queues_.find(mq);
  if (it == queues_.end()) co_return Error(Errc::invalid_argument, fmt::format("seek: {} is not held", mq.to_string()));
  Result<QueueOffset> min = co_await min_offset(ci_, mq);
  if (!min.ok()) co_return std::move(min).error();
  Result<QueueOffset> max = co_await max_offset(ci_, mq);
  if (!max.ok()) co_return std::move(max).error();
  if (offset < *min || offset > *max) {
    co_return Error(Errc::invalid_argument, fmt::format("seek: offset {} of {} outside [{}, {}]", offset, mq.to_string(), *min, *max));
  }
  it = queues_.find(mq);  // the table may have changed while we asked
  if (it == queues_.end()) co_return Error(Errc::invalid_argument, fmt::format("seek: {} is not held", mq.to_string()));
  QueueState& q = *it->second;
  ++q.generation;
  q.pull_offset = offset;
  q.offset_known = true;
  q.consumed = offset;
  if (running_) start_loop(it->second);  // without waiting for a long-polling pull in flight
  co_return Status{};
}

Task<Status> LitePullConsumer::seek_to_begin(MessageQueue mq) {
  if (queues_.count(mq) == 0) co_return Error(Errc::invalid_argument, fmt::format("seek to begin: {} is not held", mq.to_string()));
  Result<QueueOffset> min = co_await min_offset(ci_, mq);
  if (!min.ok()) co_return std::move(min).error();
  Task<Status> t = seek(std::move(mq), *min);
  co_return co_await std::move(t);
}

Task<Status> LitePullConsumer::seek_to_end(MessageQueue mq) {
  if (queues_.count(mq) == 0) co_return Error(Errc::invalid_argument, fmt::format("seek to end: {} is not held", mq.to_string()));
  Result<QueueOffset> max = co_await max_offset(ci_, mq);
  if (!max.ok()) co_return std::move(max).error();
  Task<Status> t = seek(std::move(mq), *max);
  co_return co_await std::move(t);
}

void LitePullConsumer::pause(const std::vector<MessageQueue>& mqs) {
  for (const MessageQueue& mq : mqs) {
    auto it = queues_.find(mq);
    if (it != queues_.end()) it->second->paused = true;
  }
}

void LitePullConsumer::resume(const std::vector<MessageQueue>& mqs) {
  for (const MessageQueue& mq : mqs) {
    auto it = queues_.find(mq);
    if (it != queues_.end()) it->second->paused = false;
  }
  arrived_.wake();  // a waiting poll() looks at the cache again
}

bool LitePullConsumer::is_paused(const MessageQueue& mq) const {
  auto it = queues_.find(mq);
  return it != queues_.end() && it->second->paused;
}

Task<Result<std::optional<QueueOffset>>> LitePullConsumer::committed(MessageQueue mq) {
  co_return co_await offsets_->query_store(mq);
}

std::vector<MessageQueue> LitePullConsumer::assignment() const {
  std::vector<MessageQueue> out;
  for (const auto& [mq, q] : queues_) out.push_back(mq);
  return out;
}

// ---- ConsumerHandle -------------------------------------------------------------------------------

remoting::body::ConsumerData LitePullConsumer::consumer_data() const {
  remoting::body::ConsumerData d;
  d.group_name = config_.group;
  d.consume_type = remoting::body::ConsumeType::CONSUME_ACTIVELY;
  d.message_model = config_.message_model;
  d.consume_from_where = config_.consume_from_where;
  for (const auto& [topic, s] : subscriptions_) d.subscription_data_set.push_back(s);
  return d;
}

void LitePullConsumer::on_subscribe_queues_changed(const std::string& topic, const std::vector<MessageQueue>& queues) {
  (void)topic;
  (void)queues;
  rebalance_soon();
}

void LitePullConsumer::rebalance_soon() {
  if (!running_ || assigned_mode_) return;
  if (rebalancing_) {
    rebalance_again_ = true;
    return;
  }
  rebalancing_ = true;
  tasks_.spawn(rebalance_task(this), "lite-rebalance");
}

void LitePullConsumer::persist_offsets_soon() {
  if (!running_ || committing_) return;
  committing_ = true;
  tasks_.spawn(commit_task(this), "lite-commit");
}

Task<void> LitePullConsumer::commit_task(LitePullConsumer* self) {
  if (self->config_.auto_commit) {
    co_await self->commit();
  } else {
    co_await self->offsets_->persist_all(self->assignment());
  }
  self->committing_ = false;
}

Task<void> LitePullConsumer::start_task(LitePullConsumer* self) {
  std::vector<std::string> topics;
  for (const auto& [topic, s] : self->subscriptions_) topics.push_back(topic);
  for (const std::string& topic : topics) {
    Status st = co_await self->ci_.update_topic_route(topic);
    if (!st.ok()) self->rt_.log().info("lite pull consumer start: {}", st.error().to_string());
  }
  (void)co_await self->ci_.send_heartbeat_to_all();
  self->rebalance_soon();
}

Task<void> LitePullConsumer::rebalance_task(LitePullConsumer* self) {
  do {
    self->rebalance_again_ = false;
    std::vector<std::string> topics;
    for (const auto& [topic, s] : self->subscriptions_) topics.push_back(topic);
    for (const std::string& topic : topics) {
      if (!self->running_) break;
      AllocationRequest req{self->config_.group, topic, self->config_.message_model, self->config_.allocate_strategy};
      Task<Result<std::vector<MessageQueue>>> at = allocated_queues(self->ci_, std::move(req));
      Result<std::vector<MessageQueue>> allocated = co_await std::move(at);
      if (!allocated.ok()) {
        if (auto held = self->rebalance_log_.admit(self->rt_.now(), static_cast<std::int64_t>(allocated.error().code))) {
          self->rt_.log().info("lite rebalance of '{}', topic '{}': {}{}", self->config_.group, topic,
                               allocated.error().to_string(), held_back_note(*held));
        }
        continue;
      }
      co_await self->update_queues(topic, std::move(*allocated), false);
    }
  } while (self->rebalance_again_ && self->running_);
  self->rebalancing_ = false;
}

Task<void> LitePullConsumer::update_queues(std::string topic, std::vector<MessageQueue> allocated, bool all_topics) {
  std::sort(allocated.begin(), allocated.end());
  std::vector<std::shared_ptr<QueueState>> gone;
  for (const auto& [mq, q] : queues_) {
    if ((all_topics || mq.topic == topic) && !std::binary_search(allocated.begin(), allocated.end(), mq)) gone.push_back(q);
  }
  for (const auto& q : gone) {
    queues_.erase(q->mq);
    co_await give_up(q);
  }
  for (const MessageQueue& mq : allocated) {
    if (running_ && queues_.count(mq) == 0) {
      take(mq);
      start_loop(queues_.at(mq));
    }
  }
}

void LitePullConsumer::take(const MessageQueue& mq) {
  auto q = std::make_shared<QueueState>();
  q->mq = mq;
  queues_[mq] = q;
  if (running_ && assigned_mode_) start_loop(q);
}

Task<void> LitePullConsumer::give_up(std::shared_ptr<QueueState> q) {
  q->dropped = true;
  rt_.log().debug("group '{}' gave up {}, consumed offset {}", config_.group, q->mq.to_string(),
                  q->consumed ? fmt::format("{}", *q->consumed) : std::string("none (nothing polled)"));
  if (q->consumed) offsets_->update(q->mq, *q->consumed, false);
  co_await offsets_->persist(q->mq);
  offsets_->remove(q->mq);
}

MessageSelector LitePullConsumer::selector_of_topic(const std::string& topic) const {
  auto it = subscriptions_.find(topic);
  return it == subscriptions_.end() ? MessageSelector{} : selector_of(it->second);
}

// ---- pulling -----------------------------------------------------------------------------------

void LitePullConsumer::start_loop(const std::shared_ptr<QueueState>& q) {
  ++q->loop;
  tasks_.spawn(pull_loop(this, q, q->loop), "lite-pull");
}

Task<void> LitePullConsumer::pull_loop(LitePullConsumer* self, std::shared_ptr<QueueState> q, std::uint64_t loop) {
  const LitePullConsumerConfig& c = self->config_;
  while (self->loop_live(*q, loop)) {
    if (q->paused) {
      co_await self->rt_.sleep(c.pull_delay_when_pause);
      continue;
    }
    if (self->cached_msgs_ > static_cast<std::size_t>(c.pull_threshold_for_all) ||
        q->cached > static_cast<std::size_t>(c.pull_threshold_for_queue)) {
      co_await self->rt_.sleep(c.pull_delay_when_flow_control);
      continue;
    }
    if (!q->offset_known) {
      StartOffsetRequest sreq{q->mq, c.consume_from_where,
                              c.consume_timestamp_ms.value_or(self->rt_.wall_ms() - to_ms(kDefaultTimestampBack)),
                              /*remember_stored=*/false};
      Task<Result<QueueOffset>> st = start_offset(self->ci_, *self->offsets_, std::move(sreq));
      Result<QueueOffset> start = co_await std::move(st);
      if (!self->loop_live(*q, loop)) break;
      if (!start.ok()) {
        if (auto held = self->start_offset_log_.admit(self->rt_.now(), static_cast<std::int64_t>(start.error().code))) {
          self->rt_.log().info("lite pull: no start offset for {}: {}{}", q->mq.to_string(), start.error().to_string(),
                               held_back_note(*held));
        }
        co_await self->rt_.sleep(c.pull_delay_when_exception);
        continue;
      }
      if (!q->offset_known) {  // a seek() meanwhile wins
        self->rt_.log().debug("group '{}' took {} from offset {}", c.group, q->mq.to_string(), *start);
        q->pull_offset = *start;
        q->offset_known = true;
        // `consumed` stays unset until a poll() or seek(): a queue given up (or committed) before
        // this consumer polled from it writes no offset. Its start may be older than what the
        // group committed since (a start computed per consume_from_where while the broker had no
        // offset yet, or a member that held the queue at the same time during a hand-over), and
        // writing it back would move the group's committed offset back (RocketMQ: commitAll skips
        // a consumer offset of -1, and removeUnnecessaryMessageQueue persists only what the
        // offset store holds).
      }
    }
    const std::uint64_t generation = q->generation;
    PullRequest req;
    req.group = c.group;
    req.queue = q->mq;
    req.offset = q->pull_offset;
    req.max_nums = c.pull_batch_size;
    MessageSelector selector = self->selector_of_topic(q->mq.topic);
    req.sub_expression = std::move(selector.expression);
    req.expression_type = selector.type;
    req.suspend = c.broker_suspend_max;
    req.timeout = c.pull_timeout_when_suspend;
    Task<Result<PullResult>> pt = self->pull_api_.pull(std::move(req));
    Result<PullResult> r = co_await std::move(pt);
    if (!self->loop_live(*q, loop)) break;      // stopped, given up, or a seek() started a new loop
    if (generation != q->generation) continue;  // seek() meanwhile
    if (!r.ok()) {
      if (auto held = self->pull_error_log_.admit(self->rt_.now(), static_cast<std::int64_t>(r.error().code))) {
        self->rt_.log().info("lite pull {} at {}: {}{}", q->mq.to_string(), q->pull_offset, r.error().to_string(),
                             held_back_note(*held));
      }
      co_await self->rt_.sleep(c.pull_delay_when_exception);
      continue;
    }
    if (r->status == PullStatus::OFFSET_ILLEGAL) {
      ++self->offsets_moved_;
      if (auto held = self->offset_illegal_log_.admit(self->rt_.now())) {
        self->rt_.log().warn("lite pull {}: offset {} illegal, the broker suggests {}{}", q->mq.to_string(),
                             q->pull_offset, r->next_begin_offset, held_back_note(*held));
      }
    }
    q->pull_offset = r->next_begin_offset;
    if (r->status == PullStatus::FOUND && !r->messages.empty()) {
      if (self->trace_) self->trace_pulled(r->messages);
      const std::size_t n = r->messages.size();
      self->cache_.push_back(Batch{q, generation, std::move(r->messages)});
      self->cached_msgs_ += n;
      q->cached += n;
      self->arrived_.wake();
    }
  }
}

// RocketMQ's lite pull consumer runs its consume hooks on each pulled batch: SubBefore, then a
// successful SubAfter at once.
void LitePullConsumer::trace_pulled(const std::vector<MessageExt>& msgs) {
  const std::string request_id = trace_->new_request_id();
  const WallMs now = rt_.wall_ms();
  for (const MessageExt& m : msgs) {
    std::optional<TraceContext> before = sub_before_context(m, config_.group, request_id, now);
    if (!before || !trace_->append(*before)) continue;
    (void)trace_->append(sub_after_context(*before, true, ConsumeReturnType::success, 0, now));
  }
}

}  // namespace ferry::client
