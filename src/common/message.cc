#include "common/message.h"

#include <fmt/format.h>

#include <charconv>

#include "common/message_const.h"

namespace ferry {

Result<std::int32_t> parse_int32_property(std::string_view key, std::string_view text) {
  std::int32_t v = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size()) {
    return Error(Errc::invalid_argument,
                 fmt::format("property {} is not an int32: '{}'", key, text.substr(0, 40)));
  }
  return v;
}

std::optional<std::string_view> Message::tags() const { return properties.get(prop::kTags); }
void Message::set_tags(std::string_view tags) { properties.set(prop::kTags, tags); }

std::vector<std::string_view> Message::keys() const {
  std::vector<std::string_view> out;
  auto text = properties.get(prop::kKeys);
  if (!text) return out;
  std::string_view s = *text;
  while (!s.empty()) {
    std::size_t sp = s.find(prop::kKeySeparator);
    std::string_view k = s.substr(0, sp);
    if (!k.empty()) out.push_back(k);
    if (sp == std::string_view::npos) break;
    s = s.substr(sp + 1);
  }
  return out;
}

void Message::set_keys(std::span<const std::string> keys) {
  std::string joined;
  for (const std::string& k : keys) {
    if (!joined.empty()) joined += prop::kKeySeparator;
    joined += k;
  }
  properties.set(prop::kKeys, joined);
}

void Message::set_keys(std::string_view space_separated) {
  properties.set(prop::kKeys, space_separated);
}

std::optional<std::string_view> Message::uniq_key() const { return properties.get(prop::kUniqKey); }
void Message::set_uniq_key(std::string id) { properties.set(prop::kUniqKey, std::move(id)); }

Result<std::int32_t> Message::delay_level() const {
  auto text = properties.get(prop::kDelay);
  if (!text) return 0;
  return parse_int32_property(prop::kDelay, *text);
}
void Message::set_delay_level(std::int32_t level) {
  properties.set(prop::kDelay, fmt::format("{}", level));
}

void Message::set_delay_time_sec(std::int64_t seconds) { properties.set(prop::kTimerDelaySec, fmt::format("{}", seconds)); }
void Message::set_delay_time_ms(std::int64_t ms) { properties.set(prop::kTimerDelayMs, fmt::format("{}", ms)); }
void Message::set_deliver_time_ms(WallMs at) { properties.set(prop::kTimerDeliverMs, fmt::format("{}", at)); }

bool Message::wait_store_ok() const {
  auto text = properties.get(prop::kWait);
  if (!text) return true;
  if (text->size() != 4) return false;
  static constexpr std::string_view kTrue = "true";
  for (std::size_t i = 0; i < 4; ++i) {
    char c = (*text)[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != kTrue[i]) return false;
  }
  return true;
}
void Message::set_wait_store_ok(bool wait) {
  properties.set(prop::kWait, wait ? "true" : "false");
}

std::optional<std::string_view> Message::retry_topic() const {
  return properties.get(prop::kRetryTopic);
}
void Message::set_retry_topic(std::string_view topic) {
  properties.set(prop::kRetryTopic, topic);
}
std::optional<std::string_view> Message::real_topic() const {
  return properties.get(prop::kRealTopic);
}
void Message::set_real_topic(std::string_view topic) { properties.set(prop::kRealTopic, topic); }

Result<std::optional<QueueId>> Message::real_queue_id() const {
  auto text = properties.get(prop::kRealQueueId);
  if (!text) return std::optional<QueueId>();
  auto v = parse_int32_property(prop::kRealQueueId, *text);
  if (!v) return std::move(v).error();
  return std::optional<QueueId>(QueueId(*v));
}
void Message::set_real_queue_id(QueueId id) {
  properties.set(prop::kRealQueueId, fmt::format("{}", id.value()));
}

std::optional<std::string_view> Message::origin_message_id() const {
  return properties.get(prop::kOriginMessageId);
}
void Message::set_origin_message_id(std::string_view id) {
  properties.set(prop::kOriginMessageId, id);
}

Result<std::optional<std::int32_t>> Message::max_reconsume_times() const {
  auto text = properties.get(prop::kMaxReconsumeTimes);
  if (!text) return std::optional<std::int32_t>();
  auto v = parse_int32_property(prop::kMaxReconsumeTimes, *text);
  if (!v) return std::move(v).error();
  return std::optional<std::int32_t>(*v);
}
void Message::set_max_reconsume_times(std::int32_t times) {
  properties.set(prop::kMaxReconsumeTimes, fmt::format("{}", times));
}

std::optional<std::string_view> Message::cluster() const { return properties.get(prop::kCluster); }
void Message::set_cluster(std::string_view cluster) { properties.set(prop::kCluster, cluster); }

std::string_view MessageExt::msg_id() const {
  auto uniq = uniq_key();
  return uniq ? *uniq : std::string_view(offset_msg_id);
}

}  // namespace ferry
