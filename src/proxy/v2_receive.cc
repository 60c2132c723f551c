#include "proxy/v2_receive.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <optional>

#include "common/hex.h"
#include "common/md5.h"
#include "common/message_const.h"
#include "common/pop_receipt.h"
#include "proxy/v2_send.h"

namespace ferry::proxy {

namespace {

void set_ms(google::protobuf::Timestamp& t, std::int64_t ms) {
  t.set_seconds(ms / 1000);
  t.set_nanos(static_cast<std::int32_t>(ms % 1000) * 1'000'000);
}

std::optional<std::int64_t> int_property(const MessageExt& m, std::string_view key) {
  auto v = m.properties.get(key);
  if (!v) return std::nullopt;
  std::int64_t out = 0;
  auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), out);
  if (ec != std::errc() || end != v->data() + v->size()) return std::nullopt;
  return out;
}

std::string ip_of(const HostPort& h) {
  const std::string s = h.to_string();
  if (h.ipv6) {
    const std::size_t close = s.find(']');
    return close == std::string::npos ? s : s.substr(1, close - 1);
  }
  const std::size_t colon = s.rfind(':');
  return colon == std::string::npos ? s : s.substr(0, colon);
}

}  // namespace

std::string proxy_receipt_handle(std::string_view pop_ck, PhysicalOffset commit_log_offset) {
  return fmt::format("{} {}", pop_ck, commit_log_offset.value());
}

v2::Message to_v2_message(const MessageExt& m, std::string_view topic, WallMs now_ms) {
  v2::Message out;
  out.mutable_topic()->set_name(std::string(topic));
  for (const auto& [key, value] : m.properties) {
    if (!is_reserved_property(key)) (*out.mutable_user_properties())[std::string(key)] = std::string(value);
  }
  out.set_body(std::string(m.body.begin(), m.body.end()));
  v2::SystemProperties& sp = *out.mutable_system_properties();
  if (auto tag = m.properties.get(prop::kTags)) sp.set_tag(std::string(*tag));
  for (std::string_view k : m.keys()) sp.add_keys(std::string(k));
  sp.set_message_id(std::string(m.msg_id()));
  sp.mutable_body_digest()->set_type(v2::MD5);
  const auto digest = md5(Bytes(m.body.data(), m.body.size()));
  std::string hex = to_hex(Bytes(digest.data(), digest.size()));
  for (char& c : hex) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  sp.mutable_body_digest()->set_checksum(hex);
  sp.set_body_encoding(v2::IDENTITY);
  if (m.properties.get(prop::kTransactionPrepared) == std::optional<std::string_view>("true")) {
    sp.set_message_type(v2::TRANSACTION);
  } else if (m.properties.get(prop::kDelay) || m.properties.get(prop::kTimerDeliverMs) || m.properties.get(prop::kTimerDelaySec)) {
    sp.set_message_type(v2::DELAY);
  } else if (m.properties.get(prop::kShardingKey)) {
    sp.set_message_type(v2::FIFO);
  } else {
    sp.set_message_type(v2::NORMAL);
  }
  set_ms(*sp.mutable_born_timestamp(), m.born_timestamp_ms);
  if (auto host = m.properties.get(prop::kBornHost)) {
    sp.set_born_host(std::string(*host));
  } else {
    sp.set_born_host(ip_of(m.born_host));
  }
  set_ms(*sp.mutable_store_timestamp(), m.store_timestamp_ms);
  sp.set_store_host(m.store_host.to_string());
  if (auto sec = int_property(m, prop::kTimerDelaySec)) {
    set_ms(*sp.mutable_delivery_timestamp(), now_ms + *sec * 1000);
  } else if (auto at = int_property(m, prop::kTimerDeliverMs)) {
    set_ms(*sp.mutable_delivery_timestamp(), *at);
  }
  if (auto group = m.properties.get(prop::kShardingKey)) sp.set_message_group(std::string(*group));
  if (auto ck = m.properties.get(kPropertyPopCk)) sp.set_receipt_handle(proxy_receipt_handle(*ck, m.physical_offset));
  sp.set_queue_id(m.queue_id.value());
  sp.set_queue_offset(m.queue_offset.value());
  sp.set_delivery_attempt(m.reconsume_times + 1);
  if (auto trace = m.properties.get("TRACE_CONTEXT")) sp.set_trace_context(std::string(*trace));
  auto dlq_topic = m.properties.get("DLQ_ORIGIN_TOPIC");
  auto dlq_id = m.properties.get("DLQ_ORIGIN_MESSAGE_ID");
  if (dlq_topic && dlq_id) {
    sp.mutable_dead_letter_queue()->set_topic(std::string(*dlq_topic));
    sp.mutable_dead_letter_queue()->set_message_id(std::string(*dlq_id));
  }
  return out;
}

}  // namespace ferry::proxy
