#include "broker/broker_stats.h"

#include <algorithm>

#include "remoting/header/admin_stats_header.h"
#include "runtime/assert.h"

namespace ferry::broker {

std::int64_t BrokerStats::second_of(MonoTime now) const {
  FERRY_ASSERT(now >= boot_, "BrokerStats: time {} ns is before the boot time {} ns", to_ns(now), to_ns(boot_));
  return std::chrono::duration_cast<std::chrono::seconds>(now - boot_).count();
}

BrokerStats::Slot& BrokerStats::slot_for(std::int64_t second) {
  Slot& s = slots_[static_cast<std::size_t>(second) % kSlots];
  if (s.second != second) s = Slot{second, 0, 0};  // an older second's counts: out of every window
  return s;
}

namespace {

// RocketMQ's buildStatsKey(topic, group).
void group_key_into(std::string& out, std::string_view topic, std::string_view group) {
  out.assign(topic);
  out += '@';
  out += group;
}

}  // namespace

void BrokerStats::on_put(MonoTime now, const std::string& topic, std::int64_t messages, std::int64_t bytes) {
  FERRY_ASSERT(messages >= 0, "BrokerStats::on_put: {} messages", messages);
  FERRY_ASSERT(bytes >= 0, "BrokerStats::on_put: {} bytes", bytes);
  slot_for(second_of(now)).put += messages;
  totals_.put_messages += messages;
  totals_.put_bytes += bytes;
  topic_puts_.add(now, topic, messages, bytes);
}

void BrokerStats::on_acked(std::int32_t epoch, std::int64_t messages) {
  FERRY_ASSERT(messages >= 0, "BrokerStats::on_acked: {} messages", messages);
  acked_by_epoch_[epoch] += messages;
  if (acked_by_epoch_.size() > kAckEpochsMax) acked_by_epoch_.erase(acked_by_epoch_.begin());
}

void BrokerStats::on_get(MonoTime now, std::string_view topic, std::string_view group, std::int64_t messages,
                         std::int64_t bytes) {
  FERRY_ASSERT(messages >= 0, "BrokerStats::on_get: {} messages", messages);
  FERRY_ASSERT(bytes >= 0, "BrokerStats::on_get: {} bytes", bytes);
  slot_for(second_of(now)).get += messages;
  totals_.get_messages += messages;
  totals_.get_bytes += bytes;
  group_key_into(group_key_, topic, group);
  group_gets_.add(now, group_key_, messages, bytes);
}

double BrokerStats::rate(MonoTime now, std::int64_t window_seconds, std::int64_t Slot::*field) const {
  FERRY_ASSERT(window_seconds >= 1 && window_seconds <= kWindowSecondsMax, "BrokerStats: window of {} s",
               window_seconds);
  const std::int64_t current = second_of(now);
  const std::int64_t first = std::max<std::int64_t>(0, current - window_seconds);
  const std::int64_t seconds = current - first;  // whole seconds in the window
  if (seconds == 0) return 0.0;
  std::int64_t sum = 0;
  for (std::int64_t s = first; s < current; ++s) {
    const Slot& slot = slots_[static_cast<std::size_t>(s) % kSlots];
    if (slot.second == s) sum += slot.*field;
  }
  return static_cast<double>(sum) / static_cast<double>(seconds);
}

double BrokerStats::put_tps(MonoTime now, std::int64_t window_seconds) const {
  return rate(now, window_seconds, &Slot::put);
}

double BrokerStats::get_tps(MonoTime now, std::int64_t window_seconds) const {
  return rate(now, window_seconds, &Slot::get);
}

std::optional<KeyedStats::Windows> BrokerStats::view(MonoTime now, std::string_view stats_name,
                                                    const std::string& key) const {
  namespace names = remoting::stats_name;
  using Series = KeyedStats::Series;
  if (stats_name == names::kTopicPutNums) return topic_puts_.find(now, key, Series::nums);
  if (stats_name == names::kTopicPutSize) return topic_puts_.find(now, key, Series::size);
  if (stats_name == names::kGroupGetNums) return group_gets_.find(now, key, Series::nums);
  if (stats_name == names::kGroupGetSize) return group_gets_.find(now, key, Series::size);
  return std::nullopt;
}

double BrokerStats::group_get_tps(MonoTime now, std::string_view topic, std::string_view group) const {
  std::string key;
  group_key_into(key, topic, group);
  const std::optional<KeyedStats::Windows> w = group_gets_.find(now, key, KeyedStats::Series::nums);
  return w ? w->minute.tps : 0.0;
}

}  // namespace ferry::broker
