// BrokerMetrics: the broker's metrics registry (common/metrics.h) under RocketMQ 5's names and
// labels (its BrokerMetricsConstant, RemotingMetricsConstant, DefaultStoreMetricsConstant), and
// Ferry's own (ferry_*) for what RocketMQ 4's HA, the controller mode and the store show. The
// list, with each metric's meaning and labels, is docs/operations.md "Monitoring".
//
// Two kinds:
//  * counted as it happens (the processors call on_put, on_get, on_dlq; the RPC servers'
//    request observer is rpc(), remoting/rpc/rpc_metrics.h; the store's flush service observes its syncs): one
//    hash lookup per request for the per-topic and per-group series, then plain adds;
//  * read when collected (callback families over the broker's components): topic and group
//    numbers, connections, consumer lag, storage, HA state. Nothing is kept up to date for them.
// Names are those a Prometheus scrape of a RocketMQ 5 broker shows: OpenTelemetry's exporter
// appends the unit (rocketmq_rpc_latency_milliseconds, rocketmq_storage_size_bytes,
// rocketmq_consumer_lag_latency_milliseconds). Common labels: cluster, node_type="broker",
// node_id=brokerName.
//
// Bounded: every family holds at most config.stats_keys_max series (the per-key stats' cap),
// then counts into its "_other" series (metrics.h); the lookup caches stop growing there too.
// Loop thread only.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "broker/broker_config.h"
#include "common/metrics.h"
#include "common/offsets.h"
#include "remoting/rpc/rpc_metrics.h"
#include "runtime/runtime.h"

namespace ferry::store {
class MessageStore;
namespace ha {
class HaMaster;
class HaSlave;
}  // namespace ha
}  // namespace ferry::store

namespace ferry::broker {

class TopicConfigManager;
class ConsumerOffsetManager;
class ConsumerManager;
class ProducerManager;
class SubscriptionGroupManager;
class ReplicasManager;
class HaStatusProcessor;

class BrokerMetrics {
 public:
  // RocketMQ 5's TopicMessageType, as its metrics name them.
  enum class MessageType : std::uint8_t { normal, fifo, delay, transaction };
  static std::string_view message_type_name(MessageType t);

  // Timer messages and POP consumption, as their services count them (read when collected).
  struct TimerFigures {
    std::int64_t pending = 0;       // timers on the wheel, not due yet
    std::uint64_t delivered = 0;    // put on their topics since start
    std::int64_t wheel_bytes = 0;   // the wheel's memory
    std::int64_t log_bytes = 0;     // the TimerLog's bytes on disk
  };
  struct PopFigures {
    std::size_t open_checkpoints = 0;  // POP checkpoints in memory, not all acknowledged nor revived yet
    std::uint64_t revived = 0;         // messages re-put to a POP retry topic since start
    std::size_t fifo_batches = 0;      // FIFO queues with a batch out
  };

  // What the collected families read; every reference outlives this object. `replicas` gives
  // the controller mode's ReplicasManager (null outside it, or before it exists).
  struct Sources {
    store::MessageStore& store;
    store::ha::HaMaster& ha_master;
    store::ha::HaSlave& ha_slave;
    const HaStatusProcessor& ha_status;  // what haStatus (GET_BROKER_HA_STATUS) answers
    TopicConfigManager& topics;
    ConsumerOffsetManager& offsets;
    ConsumerManager& consumers;
    ProducerManager& producers;
    const SubscriptionGroupManager& groups;
    std::function<const ReplicasManager*()> replicas;
    // Connections the broker's servers closed at once for their connection cap, so far.
    std::function<std::uint64_t()> refused_connections;
    std::function<TimerFigures()> timers;
    std::function<PopFigures()> pop;
  };

  BrokerMetrics(Runtime& rt, const BrokerConfig& config);
  BrokerMetrics(const BrokerMetrics&) = delete;
  BrokerMetrics& operator=(const BrokerMetrics&) = delete;

  // Registers the collected families; once, before the first collect.
  void bind(Sources s);

  // A send stored `messages` messages of `bytes` record bytes under `topic` (the topic the
  // producer addressed).
  void on_put(std::string_view topic, MessageType type, std::int64_t messages, std::int64_t bytes);
  // A pull of `group` returned `messages` (`bytes`) from `queue` of `topic`; `next` is where the
  // consumer pulls next (inflight: what it pulled and has not committed yet).
  void on_get(std::string_view topic, std::string_view group, QueueId queue, QueueOffset next, std::int64_t messages,
              std::int64_t bytes);
  // A message of `group` consumed from `topic` went to the group's DLQ.
  void on_dlq(std::string_view group, std::string_view topic);
  // rocketmq_rpc_latency_milliseconds and ferry_requests_refused_total: the broker's servers'
  // request observer.
  remoting::RpcMetrics& rpc() { return *rpc_; }

  metrics::Registry& registry() { return registry_; }
  const metrics::Registry& registry() const { return registry_; }

  // Bounds of rocketmq_message_size (bytes): RocketMQ 5's.
  static const std::vector<double>& message_size_bounds();

 private:
  struct InSeries {
    std::array<metrics::Counter*, 4> messages{};  // by MessageType; null until its first message
    std::array<metrics::Counter*, 4> bytes{};
    std::array<metrics::Histogram*, 4> size{};
  };
  struct OutSeries {
    metrics::Counter* messages = nullptr;
    metrics::Counter* bytes = nullptr;
  };
  struct StringHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  template <typename V>
  using Cache = std::unordered_map<std::string, V, StringHash, std::equal_to<>>;

  InSeries& in_series(std::string_view topic);
  OutSeries& out_series(std::string_view topic, std::string_view group);
  void bind_clients(const Sources& s);
  void bind_consumer_lag(const Sources& s);
  void bind_store(const Sources& s);
  void bind_ha(const Sources& s);
  void bind_timers_and_pop(const Sources& s);

  Runtime& rt_;
  const BrokerConfig& config_;
  metrics::Registry registry_;
  metrics::Family<metrics::Counter>* messages_in_;
  metrics::Family<metrics::Counter>* throughput_in_;
  metrics::Family<metrics::Histogram>* message_size_;
  metrics::Family<metrics::Counter>* messages_out_;
  metrics::Family<metrics::Counter>* throughput_out_;
  metrics::Family<metrics::Counter>* send_to_dlq_;
  std::unique_ptr<remoting::RpcMetrics> rpc_;
  // Lookup caches (looked up, never iterated); at most series_max entries each.
  Cache<InSeries> in_cache_;
  Cache<OutSeries> out_cache_;
  InSeries in_uncached_;    // the series of the last lookup the full cache could not keep
  OutSeries out_uncached_;
  std::string key_buffer_;  // "topic\0group", reused
  // Where each group's consumers pull next, by "topic\0group", per queue (inflight, ready).
  Cache<std::map<QueueId, QueueOffset>> pulled_;
};

}  // namespace ferry::broker
