#include "broker/broker_metrics.h"

#include <algorithm>
#include <cctype>

#include "broker/consumer_manager.h"
#include "broker/consumer_offset_manager.h"
#include "broker/ha_status_processor.h"
#include "broker/producer_manager.h"
#include "broker/replicas_manager.h"
#include "broker/subscription_group_manager.h"
#include "broker/topic_config_manager.h"
#include "common/names.h"
#include "store/ha/ha_master.h"
#include "store/ha/ha_slave.h"
#include "store/message_store.h"

namespace ferry::broker {

namespace {

using metrics::SampleSink;
using metrics::Type;

std::string_view bool_label(bool b) { return b ? "true" : "false"; }

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

}  // namespace

std::string_view BrokerMetrics::message_type_name(MessageType t) {
  switch (t) {
    case MessageType::normal: return "normal";
    case MessageType::fifo: return "fifo";
    case MessageType::delay: return "delay";
    case MessageType::transaction: return "transaction";
  }
  return "normal";
}

const std::vector<double>& BrokerMetrics::message_size_bounds() {
  static const std::vector<double> kBounds{1024, 4096, 524288, 1048576, 2097152, 4194304};
  return kBounds;
}

BrokerMetrics::BrokerMetrics(Runtime& rt, const BrokerConfig& config)
    : rt_(rt), config_(config), registry_(std::max<std::size_t>(1, config.stats_keys_max)) {
  registry_.set_common_labels({{"cluster", config.broker_cluster_name},
                               {"node_type", "broker"},
                               {"node_id", config.broker_name}});
  const std::vector<std::string> in_labels{"topic", "message_type", "is_system"};
  messages_in_ = &registry_.counter("rocketmq_messages_in_total", "Total number of incoming messages", in_labels);
  throughput_in_ = &registry_.counter("rocketmq_throughput_in_total", "Total traffic of incoming messages (bytes)", in_labels);
  message_size_ = &registry_.histogram("rocketmq_message_size", "Incoming messages size (bytes)", in_labels,
                                       message_size_bounds());
  const std::vector<std::string> out_labels{"topic", "consumer_group", "is_retry", "is_system"};
  messages_out_ = &registry_.counter("rocketmq_messages_out_total", "Total number of outgoing messages", out_labels);
  throughput_out_ = &registry_.counter("rocketmq_throughput_out_total", "Total traffic of outgoing messages (bytes)", out_labels);
  send_to_dlq_ = &registry_.counter("rocketmq_send_to_dlq_messages_total", "Consumer send to DLQ messages",
                                    {"consumer_group", "topic", "is_system"});
  rpc_ = std::make_unique<remoting::RpcMetrics>(registry_);
}

BrokerMetrics::InSeries& BrokerMetrics::in_series(std::string_view topic) {
  if (auto it = in_cache_.find(topic); it != in_cache_.end()) return it->second;
  // A full cache stops growing: the family has overflowed, and a new topic's series are its
  // "_other" series, looked up again next time.
  if (in_cache_.size() >= registry_.series_max()) {
    in_uncached_ = InSeries{};
    return in_uncached_;
  }
  return in_cache_.emplace(std::string(topic), InSeries{}).first->second;
}

void BrokerMetrics::on_put(std::string_view topic, MessageType type, std::int64_t messages, std::int64_t bytes) {
  if (messages <= 0) return;
  InSeries& s = in_series(topic);
  const auto t = static_cast<std::size_t>(type);
  if (s.messages[t] == nullptr) {  // a topic's series of one message type are made on its first message
    const std::string_view type_name = message_type_name(type);
    const std::string_view system = bool_label(is_system_topic(topic));
    s.messages[t] = &messages_in_->with({topic, type_name, system});
    s.bytes[t] = &throughput_in_->with({topic, type_name, system});
    s.size[t] = &message_size_->with({topic, type_name, system});
  }
  s.messages[t]->inc(static_cast<std::uint64_t>(messages));
  s.bytes[t]->inc(static_cast<std::uint64_t>(std::max<std::int64_t>(0, bytes)));
  s.size[t]->observe(static_cast<double>(bytes / messages));
}

BrokerMetrics::OutSeries& BrokerMetrics::out_series(std::string_view topic, std::string_view group) {
  key_buffer_.assign(topic);
  key_buffer_.push_back('\0');
  key_buffer_.append(group);
  if (auto it = out_cache_.find(key_buffer_); it != out_cache_.end()) return it->second;
  const std::string_view retry = bool_label(is_retry_topic(topic));
  const std::string_view system = bool_label(is_system_topic(topic) || is_system_group(group));
  OutSeries s{&messages_out_->with({topic, group, retry, system}), &throughput_out_->with({topic, group, retry, system})};
  if (out_cache_.size() >= registry_.series_max()) {
    out_uncached_ = s;
    return out_uncached_;
  }
  return out_cache_.emplace(key_buffer_, s).first->second;
}

void BrokerMetrics::on_get(std::string_view topic, std::string_view group, QueueId queue, QueueOffset next,
                           std::int64_t messages, std::int64_t bytes) {
  if (messages > 0) {
    OutSeries& s = out_series(topic, group);
    s.messages->inc(static_cast<std::uint64_t>(messages));
    s.bytes->inc(static_cast<std::uint64_t>(std::max<std::int64_t>(0, bytes)));
  } else {
    key_buffer_.assign(topic);
    key_buffer_.push_back('\0');
    key_buffer_.append(group);
  }
  auto it = pulled_.find(key_buffer_);
  if (it == pulled_.end()) {
    if (pulled_.size() >= registry_.series_max()) return;
    it = pulled_.emplace(key_buffer_, std::map<QueueId, QueueOffset>{}).first;
  }
  QueueOffset& at = it->second[queue];
  at = std::max(at, next);
}

void BrokerMetrics::on_dlq(std::string_view group, std::string_view topic) {
  send_to_dlq_->with({group, topic, bool_label(is_system_topic(topic) || is_system_group(group))}).inc();
}

void BrokerMetrics::bind(Sources s) {
  registry_.callback(Type::gauge, "rocketmq_broker_permission", "Broker permission", {},
                     [this](SampleSink& sink) { sink.add({}, config_.broker_permission); });
  registry_.callback(Type::gauge, "rocketmq_topic_number", "Active topic number", {},
                     [&topics = s.topics](SampleSink& sink) { sink.add({}, static_cast<double>(topics.table().size())); });
  registry_.callback(Type::gauge, "rocketmq_consumer_group_number", "Active subscription group number", {},
                     [&groups = s.groups](SampleSink& sink) { sink.add({}, static_cast<double>(groups.table().size())); });
  registry_.callback(Type::counter, "ferry_connections_refused_total",
                     "Connections closed at once because the broker was at maxConnections", {},
                     [fn = s.refused_connections](SampleSink& sink) { sink.add({}, fn ? static_cast<double>(fn()) : 0); });
  bind_clients(s);
  bind_consumer_lag(s);
  bind_store(s);
  bind_ha(s);
  bind_timers_and_pop(s);
}

void BrokerMetrics::bind_timers_and_pop(const Sources& s) {
  auto timers = [fn = s.timers](double (*field)(const TimerFigures&)) {
    return [fn, field](SampleSink& sink) {
      if (fn) sink.add({}, field(fn()));
    };
  };
  registry_.callback(Type::gauge, "rocketmq_timing_messages", "Timer messages pending on the wheel", {},
                     timers([](const TimerFigures& f) { return static_cast<double>(f.pending); }));
  registry_.callback(Type::counter, "rocketmq_timer_dequeue_total", "Timer messages put on their topics when due", {},
                     timers([](const TimerFigures& f) { return static_cast<double>(f.delivered); }));
  registry_.callback(Type::gauge, "ferry_timer_wheel_bytes", "Memory of the timer wheel (bytes)", {},
                     timers([](const TimerFigures& f) { return static_cast<double>(f.wheel_bytes); }));
  registry_.callback(Type::gauge, "ferry_timer_log_bytes", "The TimerLog's bytes on disk", {},
                     timers([](const TimerFigures& f) { return static_cast<double>(f.log_bytes); }));
  auto pop = [fn = s.pop](double (*field)(const PopFigures&)) {
    return [fn, field](SampleSink& sink) {
      if (fn) sink.add({}, field(fn()));
    };
  };
  registry_.callback(Type::gauge, "rocketmq_pop_checkpoint_buffer_size", "POP checkpoints open in memory", {},
                     pop([](const PopFigures& f) { return static_cast<double>(f.open_checkpoints); }));
  registry_.callback(Type::counter, "rocketmq_pop_revive_retry_messages_total",
                     "Messages a POP consumer left, re-put to the group's POP retry topic", {},
                     pop([](const PopFigures& f) { return static_cast<double>(f.revived); }));
  registry_.callback(Type::gauge, "ferry_pop_fifo_batches", "FIFO POP queues with a batch out", {},
                     pop([](const PopFigures& f) { return static_cast<double>(f.fifo_batches); }));
}

void BrokerMetrics::bind_clients(const Sources& s) {
  registry_.callback(Type::gauge, "rocketmq_producer_connections", "Producer connections",
                     {"language", "version", "protocol_type"}, [&producers = s.producers](SampleSink& sink) {
                       std::map<std::pair<std::string, std::int32_t>, int> counts;
                       for (const auto& [group, members] : producers.groups()) {
                         for (const auto& [key, c] : members) ++counts[{lower(remoting::language_name(c.language)), c.version}];
                       }
                       for (const auto& [k, n] : counts) sink.add({k.first, std::to_string(k.second), "remoting"}, n);
                     });
  registry_.callback(
      Type::gauge, "rocketmq_consumer_connections", "Consumer connections",
      {"consumer_group", "language", "version", "consume_mode", "protocol_type", "is_system"},
      [&consumers = s.consumers](SampleSink& sink) {
        for (const auto& [name, g] : consumers.groups()) {
          std::map<std::pair<std::string, std::int32_t>, int> counts;
          for (const auto& [key, c] : g.channels) ++counts[{lower(remoting::language_name(c.language)), c.version}];
          const std::string_view mode =
              g.consume_type == remoting::body::ConsumeType::CONSUME_ACTIVELY ? "pull" : "push";
          for (const auto& [k, n] : counts) {
            sink.add({name, k.first, std::to_string(k.second), mode, "remoting", bool_label(is_system_group(name))}, n);
          }
        }
      });
}

void BrokerMetrics::bind_consumer_lag(const Sources& s) {
  // Per committed "topic@group": the messages behind the group's commits (lag), the time since
  // the oldest of them was stored (lag latency), those pulled and not committed (inflight) and
  // those not pulled yet (ready). RocketMQ's ConsumerLagCalculator, over the queues the broker
  // has: a topic it does not have is left out.
  struct Lag {
    double lag = 0, latency_ms = 0, inflight = 0, ready = 0;
  };
  auto compute = [this, &store = s.store, &offsets = s.offsets, &topics = s.topics](auto&& emit) {
    const WallMs now = rt_.wall_ms();
    for (const auto& [key, queues] : offsets.table()) {
      const auto at = key.find('@');
      if (at == std::string::npos) continue;
      const std::string topic = key.substr(0, at);
      const std::string group = key.substr(at + 1);
      if (topics.find(topic) == nullptr) continue;
      Lag l;
      std::string pulled_key = topic;
      pulled_key.push_back('\0');
      pulled_key.append(group);
      auto pulled_it = pulled_.find(pulled_key);
      for (const auto& [queue_number, committed_number] : queues) {
        const QueueId queue(queue_number);
        const QueueOffset committed(committed_number);
        const QueueOffset max = store.max_offset(topic, queue);
        if (max > committed) {
          l.lag += static_cast<double>(max.value() - committed.value());
          if (auto t = store.store_time_at(topic, queue, committed); t) {
            l.latency_ms = std::max(l.latency_ms, static_cast<double>(std::max<WallMs>(0, now - *t)));
          }
        }
        QueueOffset pulled = committed;
        if (pulled_it != pulled_.end()) {
          if (auto p = pulled_it->second.find(queue); p != pulled_it->second.end()) pulled = std::max(pulled, p->second);
        }
        pulled = std::min(pulled, max);
        if (pulled > committed) l.inflight += static_cast<double>(pulled.value() - committed.value());
        if (max > pulled) l.ready += static_cast<double>(max.value() - pulled.value());
      }
      emit(group, topic, l);
    }
  };
  const std::vector<std::string> labels{"consumer_group", "topic", "is_retry", "is_system"};
  auto family = [&](std::string name, std::string help, double Lag::*field) {
    registry_.callback(Type::gauge, std::move(name), std::move(help), labels, [compute, field](SampleSink& sink) {
      compute([&](const std::string& group, const std::string& topic, const Lag& l) {
        sink.add({group, topic, bool_label(is_retry_topic(topic)), bool_label(is_system_topic(topic) || is_system_group(group))},
                 l.*field);
      });
    });
  };
  family("rocketmq_consumer_lag_messages", "Consumer lag messages", &Lag::lag);
  family("rocketmq_consumer_lag_latency_milliseconds", "Consumer lag time", &Lag::latency_ms);
  family("rocketmq_consumer_inflight_messages", "Consumer inflight messages", &Lag::inflight);
  family("rocketmq_consumer_ready_messages", "Consumer ready messages", &Lag::ready);
}

void BrokerMetrics::bind_store(const Sources& s) {
  store::MessageStore& store = s.store;
  registry_.callback(Type::gauge, "rocketmq_storage_size_bytes", "Broker storage size (bytes used on the store's disk)",
                     {"storage_type", "storage_medium"}, [this](SampleSink& sink) {
                       if (auto space = rt_.fs().space(); space && space->capacity_bytes > 0) {
                         sink.add({"local", "disk"}, static_cast<double>(space->capacity_bytes - space->free_bytes));
                       }
                     });
  registry_.callback(Type::gauge, "rocketmq_storage_flush_behind_bytes", "Broker flush behind bytes",
                     {"storage_type", "storage_medium"}, [&store](SampleSink& sink) {
                       const auto& log = store.commit_log();
                       sink.add({"local", "disk"}, static_cast<double>(log.max_offset() - log.flushed_offset()));
                     });
  registry_.callback(Type::gauge, "rocketmq_storage_dispatch_behind_bytes", "Broker dispatch behind bytes",
                     {"storage_type", "storage_medium"}, [&store](SampleSink& sink) {
                       sink.add({"local", "disk"}, static_cast<double>(std::max<std::int64_t>(
                                                        0, store.max_phy_offset() - store.reput_offset())));
                     });
  registry_.callback(Type::gauge, "ferry_store_disk_used_ratio",
                     "Used fraction of the store's disk at the last cleanup check (every 10 s)", {},
                     [&store](SampleSink& sink) { sink.add({}, static_cast<double>(store.cleanup().used_pct()) / 100.0); });
  registry_.callback(Type::gauge, "ferry_store_commitlog_max_offset_bytes", "CommitLog max physical offset", {},
                     [&store](SampleSink& sink) { sink.add({}, static_cast<double>(store.max_phy_offset().value())); });
  registry_.callback(Type::gauge, "ferry_store_writable", "1 while the store takes writes (no full disk, no failed sync)", {},
                     [&store](SampleSink& sink) { sink.add({}, store.write_refusal() ? 0 : 1); });
  auto& sync = registry_.histogram("ferry_store_sync_latency_milliseconds", "CommitLog sync (flush) duration", {},
                                   {0.1, 0.5, 1, 2, 5, 10, 50, 100, 500, 1000, 5000});
  auto& batch = registry_.histogram("ferry_store_group_commit_puts", "Waiting puts one SYNC_FLUSH group-commit sync released",
                                    {}, {1, 2, 4, 8, 16, 32, 64, 128, 256, 512});
  store.flusher().set_observers(&sync.only(), &batch.only());
}

void BrokerMetrics::bind_ha(const Sources& s) {
  registry_.callback(Type::gauge, "ferry_broker_role", "1 for the role this broker has now",
                     {"role"}, [this, replicas = s.replicas](SampleSink& sink) {
                       const ReplicasManager* r = replicas ? replicas() : nullptr;
                       bool master = config_.broker_role != BrokerRole::slave;
                       if (r != nullptr) master = r->is_master();
                       sink.add({"master"}, master ? 1 : 0);
                       sink.add({"slave"}, master ? 0 : 1);
                     });
  registry_.callback(Type::gauge, "ferry_ha_master_epoch", "Controller mode: the master epoch this broker knows", {},
                     [replicas = s.replicas](SampleSink& sink) {
                       if (const ReplicasManager* r = replicas ? replicas() : nullptr) sink.add({}, r->master_epoch());
                     });
  registry_.callback(Type::gauge, "ferry_ha_sync_state_set_size", "A master in controller mode: members of its SyncStateSet", {},
                     [&ha = s.ha_master](SampleSink& sink) {
                       if (ha.controller_mode()) sink.add({}, static_cast<double>(ha.sync_state_set().size()));
                     });
  // What `mqadmin haStatus` shows of each connected slave (HaStatusProcessor::snapshot): the
  // same numbers, so an alert and an operator's command agree.
  auto per_slave = [&ha = s.ha_status](auto&& emit) {
    return [&ha, emit](SampleSink& sink) {
      const auto info = ha.snapshot();
      for (const auto& link : info.ha_connection_info) sink.add({link.addr}, emit(link));
    };
  };
  registry_.callback(Type::gauge, "ferry_ha_slave_lag_bytes",
                     "A master: CommitLog bytes each connected slave has not acknowledged (haStatus #Diff)", {"slave"},
                     per_slave([](const auto& l) { return static_cast<double>(l.diff_bytes); }));
  registry_.callback(Type::gauge, "ferry_ha_slave_lag_seconds",
                     "A master: seconds since its oldest message a slave has not acknowledged was stored (haStatus #DiffSeconds)",
                     {"slave"}, per_slave([](const auto& l) { return static_cast<double>(l.diff_ms) / 1000.0; }));
  registry_.callback(Type::gauge, "ferry_ha_slave_in_sync",
                     "A master: 1 while a slave's lag is below haSlaveFallbehindMax (it counts for SYNC_MASTER)", {"slave"},
                     per_slave([](const auto& l) { return l.in_sync ? 1.0 : 0.0; }));
  registry_.callback(Type::gauge, "ferry_ha_master_connected", "A slave: 1 while its link to the master is up", {},
                     [this, &slave = s.ha_slave](SampleSink& sink) {
                       if (config_.broker_role == BrokerRole::slave || slave.status().master) {
                         sink.add({}, slave.status().connected ? 1 : 0);
                       }
                     });
  registry_.callback(Type::gauge, "ferry_ha_master_silence_seconds",
                     "A slave: seconds since its master last sent a byte (data or heartbeat)", {},
                     [this, &slave = s.ha_slave](SampleSink& sink) {
                       const auto& st = slave.status();
                       if (st.connected) sink.add({}, to_seconds(rt_.now() - st.last_batch_at));
                     });
  registry_.callback(Type::counter, "ferry_ha_replicated_bytes_total", "A slave: CommitLog bytes received from its master", {},
                     [&slave = s.ha_slave](SampleSink& sink) { sink.add({}, static_cast<double>(slave.status().bytes)); });
}

}  // namespace ferry::broker
