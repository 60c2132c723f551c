#include "client/latency_fault_tolerance.h"

#include <algorithm>
#include <vector>

namespace ferry::client {

std::int64_t not_available_duration_ms(std::int64_t latency_ms) {
  for (std::size_t i = kLatencyMaxMs.size(); i-- > 0;) {
    if (latency_ms >= kLatencyMaxMs[i]) return kNotAvailableDurationMs[i];
  }
  return 0;
}

void LatencyFaultTolerance::update(const std::string& broker, std::int64_t latency_ms,
                                   std::int64_t not_available_ms, MonoTime now) {
  Item& it = items_[broker];
  it.latency_ms = latency_ms;
  it.start = now + std::chrono::milliseconds(not_available_ms);
}

bool LatencyFaultTolerance::is_available(const std::string& broker, MonoTime now) const {
  auto it = items_.find(broker);
  return it == items_.end() || now >= it->second.start;
}

std::optional<MonoTime> LatencyFaultTolerance::available_at(const std::string& broker) const {
  auto it = items_.find(broker);
  if (it == items_.end()) return std::nullopt;
  return it->second.start;
}

std::optional<std::string> LatencyFaultTolerance::pick_one_at_least(MonoTime now) {
  if (items_.empty()) return std::nullopt;
  struct Ranked {
    bool available;
    std::int64_t latency_ms;
    MonoTime start;
    const std::string* name;
  };
  std::vector<Ranked> list;
  list.reserve(items_.size());
  for (const auto& [name, item] : items_) list.push_back(Ranked{now >= item.start, item.latency_ms, item.start, &name});
  std::sort(list.begin(), list.end(), [](const Ranked& a, const Ranked& b) {
    if (a.available != b.available) return a.available;
    if (a.latency_ms != b.latency_ms) return a.latency_ms < b.latency_ms;
    if (a.start != b.start) return a.start < b.start;
    return *a.name < *b.name;
  });
  const std::size_t half = list.size() / 2;
  if (half == 0) return *list.front().name;
  return *list[which_worst_++ % half].name;
}

MessageQueue FaultStrategy::select(TopicPublishInfo& info, const std::optional<std::string>& last_broker, MonoTime now) {
  if (!enabled) return info.select_one_avoiding(last_broker);
  const auto& queues = info.queues();
  std::uint32_t index = info.next_index();
  for (std::size_t i = 0; i < queues.size(); ++i) {
    const MessageQueue& mq = queues[index++ % queues.size()];
    if (table_.is_available(mq.broker_name, now)) return mq;
  }
  if (auto not_best = table_.pick_one_at_least(now)) {
    const std::int32_t write_queues = info.write_queue_nums_of(*not_best);
    if (write_queues > 0) {
      MessageQueue mq = info.select_one();
      mq.broker_name = *not_best;
      mq.queue_id = QueueId(static_cast<std::int32_t>(info.next_index() % static_cast<std::uint32_t>(write_queues)));
      return mq;
    }
    table_.remove(*not_best);
  }
  return info.select_one_avoiding(last_broker);
}

void FaultStrategy::update(const std::string& broker, std::int64_t latency_ms, bool isolation, MonoTime now) {
  if (!enabled) return;
  const std::int64_t duration = not_available_duration_ms(isolation ? kFailureLatencyMs : latency_ms);
  table_.update(broker, latency_ms, duration, now);
}

}  // namespace ferry::client
