// Latency fault tolerance (RocketMQ's MQFaultStrategy + LatencyFaultToleranceImpl), used when
// ProducerConfig::send_latency_fault_enable is on.
//
// After every send attempt the producer reports the broker and the attempt's latency; a failed
// attempt counts as kFailureLatency (30 s). The latency picks an isolation time: the largest
// kLatencyMaxMs entry <= the latency selects the same index of kNotAvailableDurationMs. A broker
// whose isolation has not ended is "unavailable".
//
// Queue selection: round robin over the queues of available brokers; when none is available,
// the best of the rest (sorted by available first, then lower latency, then earlier end of
// isolation, then name; RocketMQ rotates over the better half of that list) with a queue id drawn
// from the round-robin counter; failing that, plain round robin avoiding the last broker.
//
// Time is the node's monotonic clock. The table holds one entry per broker name ever reported
// (bounded by the brokers of the cluster); remove() drops one.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "client/topic_publish_info.h"
#include "runtime/time.h"

namespace ferry::client {

inline constexpr std::array<std::int64_t, 7> kLatencyMaxMs = {50, 100, 550, 1000, 2000, 3000, 15000};
inline constexpr std::array<std::int64_t, 7> kNotAvailableDurationMs = {0, 0, 30000, 60000, 120000, 180000, 600000};
inline constexpr std::int64_t kFailureLatencyMs = 30000;
static_assert(kLatencyMaxMs.size() == kNotAvailableDurationMs.size());

// The isolation for an observed latency (0 below 550 ms).
std::int64_t not_available_duration_ms(std::int64_t latency_ms);

class LatencyFaultTolerance {
 public:
  // Records `latency_ms` for the broker and isolates it for `not_available_ms` from `now`.
  void update(const std::string& broker, std::int64_t latency_ms, std::int64_t not_available_ms, MonoTime now);
  bool is_available(const std::string& broker, MonoTime now) const;
  void remove(const std::string& broker) { items_.erase(broker); }
  // The least bad broker (see the file comment); nullopt when the table is empty.
  std::optional<std::string> pick_one_at_least(MonoTime now);
  // When the broker's isolation ends (nullopt: never reported).
  std::optional<MonoTime> available_at(const std::string& broker) const;

 private:
  struct Item {
    std::int64_t latency_ms = 0;
    MonoTime start{};  // available again from here
  };
  std::map<std::string, Item> items_;  // by broker name
  std::uint32_t which_worst_ = 0;
};

class FaultStrategy {
 public:
  bool enabled = false;

  // The queue for the next attempt; `last_broker` is the broker of the previous failed attempt.
  // `info` must be ok().
  MessageQueue select(TopicPublishInfo& info, const std::optional<std::string>& last_broker, MonoTime now);
  // Reports an attempt: `isolation` (a failure) counts as kFailureLatencyMs. No-op when disabled.
  void update(const std::string& broker, std::int64_t latency_ms, bool isolation, MonoTime now);

  const LatencyFaultTolerance& table() const { return table_; }

 private:
  LatencyFaultTolerance table_;
};

}  // namespace ferry::client
