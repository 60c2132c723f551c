// PushConsumer (push_consumer.h): what a broker asks of it — RESET_CONSUMER_CLIENT_OFFSET (220),
// GET_CONSUMER_STATUS_FROM_CLIENT (221), GET_CONSUMER_RUNNING_INFO (307) and
// CONSUME_MESSAGE_DIRECTLY (309). docs/client.md, "Broker-to-client requests".
#include <fmt/format.h>

#include "client/consume_directly.h"
#include "client/push_consumer.h"

namespace ferry::client {

namespace {
std::int64_t wall_of(Runtime& rt, MonoTime t) {
  if (t == MonoTime{}) return 0;
  return rt.wall_ms() - std::chrono::duration_cast<std::chrono::milliseconds>(rt.now() - t).count();
}
}  // namespace

void PushConsumer::reset_offsets(const std::string& topic, const std::map<MessageQueue, QueueOffset>& offsets) {
  if (!running_) {
    rt_.log().info("reset of group '{}' on topic '{}' ignored: the consumer is not running", config_.group, topic);
    return;
  }
  const std::size_t n = rebalance_->reset_offsets(topic, offsets);
  rt_.log().info("group '{}': {} held queue(s) of topic '{}' reset ({} offset(s) given)", config_.group, n, topic,
                 offsets.size());
}

std::map<MessageQueue, QueueOffset> PushConsumer::offsets_of(const std::string& topic) const {
  std::map<MessageQueue, QueueOffset> out;
  for (const auto& [mq, offset] : offsets_->table()) {
    if (mq.topic == topic) out.emplace(mq, offset);
  }
  return out;
}

std::optional<remoting::body::ConsumerRunningInfo> PushConsumer::running_info() const {
  if (!started_) return std::nullopt;
  remoting::body::ConsumerRunningInfo info;
  auto& p = info.properties;
  // RocketMQ puts the consumer's configuration (MixAll.object2Properties), then the PROP_* keys.
  p["consumerGroup"] = config_.group;
  p["messageModel"] = std::string(remoting::body::name(config_.message_model));
  p["consumeFromWhere"] = std::string(remoting::body::name(config_.consume_from_where));
  if (config_.consume_timestamp_ms) p["consumeTimestamp"] = std::to_string(*config_.consume_timestamp_ms);
  p["allocateMessageQueueStrategy"] = std::string(name(config_.allocate_strategy));
  p["consumeThreadMin"] = std::to_string(config_.consume_threads);
  p["consumeThreadMax"] = std::to_string(config_.consume_threads);
  p["pullBatchSize"] = std::to_string(config_.pull_batch_size);
  p["consumeMessageBatchMaxSize"] = std::to_string(config_.consume_message_batch_max_size);
  p["pullThresholdForQueue"] = std::to_string(config_.pull_threshold_for_queue);
  p["pullThresholdSizeForQueue"] = std::to_string(config_.pull_threshold_size_for_queue_bytes >> 20);  // MiB
  p["consumeConcurrentlyMaxSpan"] = std::to_string(config_.consume_concurrently_max_span);
  p["maxReconsumeTimes"] = std::to_string(config_.max_reconsume_times);
  p["consumeTimeout"] = std::to_string(std::chrono::duration_cast<std::chrono::minutes>(config_.consume_timeout).count());
  p[std::string(remoting::body::kPropConsumeOrderly)] = orderly() ? "true" : "false";
  p[std::string(remoting::body::kPropThreadpoolCoreSize)] = std::to_string(config_.consume_threads);
  p[std::string(remoting::body::kPropConsumerStartTimestamp)] = std::to_string(start_timestamp_ms_);

  for (const auto& [topic, s] : subscriptions_) info.subscription_set.push_back(s.data);
  const MonoTime now = rt_.now();
  if (rebalance_ != nullptr) {
    for (const auto& pq : rebalance_->held()) {
      remoting::body::ProcessQueueInfo q;
      q.commit_offset = offsets_->read_memory(pq->queue()).value_or(QueueOffset(-1)).value();
      if (auto range = pq->cached_range()) {
        q.cached_msg_min_offset = range->first.value();
        q.cached_msg_max_offset = range->second.value();
      }
      q.cached_msg_count = static_cast<std::int32_t>(pq->cached_count());
      q.cached_msg_size_in_mib = static_cast<std::int32_t>(pq->cached_body_bytes() >> 20);
      q.locked = pq->locked();
      q.last_lock_timestamp = wall_of(rt_, pq->last_lock_time());
      q.droped = pq->dropped();
      q.last_pull_timestamp = wall_of(rt_, pq->last_pull_time);
      q.last_consume_timestamp = wall_of(rt_, pq->last_consume_time);
      info.mq_table.emplace(pq->queue(), q);
    }
  }
  if (rates_ != nullptr) {
    for (const auto& [topic, s] : subscriptions_) info.status_table[topic] = rates_->status(topic, now);
  }
  return info;
}

Task<std::optional<remoting::body::ConsumeMessageDirectlyResult>> PushConsumer::consume_directly(MessageExt msg,
                                                                                                std::string broker_name) {
  if (!started_) co_return std::nullopt;
  Task<remoting::body::ConsumeMessageDirectlyResult> t =
      client::consume_directly(rt_, concurrent_listener_, orderly_listener_, std::move(msg), std::move(broker_name));
  co_return co_await std::move(t);
}

}  // namespace ferry::client
