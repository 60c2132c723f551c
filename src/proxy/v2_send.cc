#include "proxy/v2_send.h"

#include <fmt/format.h>
#include <zlib.h>

#include <algorithm>
#include <array>
#include <climits>

#include "common/java_hash.h"
#include "common/message_const.h"
#include "common/names.h"

namespace ferry::proxy {

namespace {

// MessageConst.STRING_HASH_SET of RocketMQ 5.3.
constexpr std::array<std::string_view, 51> kReserved = {
    "TRACE_ON",          "MSG_REGION",         "KEYS",              "TAGS",
    "WAIT",              "DELAY",              "RETRY_TOPIC",       "REAL_TOPIC",
    "REAL_QID",          "TRAN_MSG",           "PGROUP",            "MIN_OFFSET",
    "MAX_OFFSET",        "BUYER_ID",           "ORIGIN_MESSAGE_ID", "TRANSFER_FLAG",
    "CORRECTION_FLAG",   "MQ2_FLAG",           "RECONSUME_TIME",    "UNIQ_KEY",
    "MAX_RECONSUME_TIMES", "CONSUME_START_TIME", "POP_CK",          "POP_CK_OFFSET",
    "1ST_POP_TIME",      "TRAN_PREPARED_QUEUE_OFFSET", "DUP_INFO",  "EXTEND_UNIQ_INFO",
    "INSTANCE_ID",       "CORRELATION_ID",     "REPLY_TO_CLIENT",   "TTL",
    "ARRIVE_TIME",       "PUSH_REPLY_TIME",    "CLUSTER",           "MSG_TYPE",
    "INNER_MULTI_QUEUE_OFFSET", "TIMER_DELAY_MS", "TIMER_DELAY_SEC", "TIMER_DELIVER_MS",
    "TIMER_ENQUEUE_MS",  "TIMER_DEQUEUE_MS",   "TIMER_ROLL_TIMES",  "TIMER_OUT_MS",
    "TIMER_DEL_UNIQKEY", "TIMER_DELAY_LEVEL",  "__BORNHOST",        "BORN_TIMESTAMP",
    "DLQ_ORIGIN_TOPIC",  "DLQ_ORIGIN_MESSAGE_ID", "__CRC32#"};

// Java's Character.isISOControl over the code points of UTF-8 text: U+0000..U+001F, U+007F, and
// U+0080..U+009F (C2 80 .. C2 9F).
bool has_control(std::string_view s) {
  for (std::size_t i = 0; i < s.size(); ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7f) return true;
    if (c == 0xc2 && i + 1 < s.size()) {
      const auto n = static_cast<unsigned char>(s[i + 1]);
      if (n >= 0x80 && n <= 0x9f) return true;
    }
  }
  return false;
}

// Java's String.isBlank for what clients send: empty, or only whitespace.
bool blank(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; });
}

Refusal refuse(v2::Code code, std::string message) { return Refusal{code, std::move(message)}; }

std::optional<Refusal> check_topic(const std::string& topic) {
  if (Status s = validate_topic(topic); !s.ok()) return refuse(v2::ILLEGAL_TOPIC, s.error().detail);
  if (is_system_topic(topic)) return refuse(v2::ILLEGAL_TOPIC, fmt::format("cannot access system topic: {}", topic));
  return std::nullopt;
}

// A GZIP body inflated, at most `max` bytes (<= 0: no bound).
std::optional<std::vector<std::uint8_t>> gunzip(const std::string& in, std::int64_t max) {
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) return std::nullopt;
  std::vector<std::uint8_t> out;
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  std::array<std::uint8_t, 16 * 1024> buf{};
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = buf.data();
    z.avail_out = static_cast<uInt>(buf.size());
    rc = inflate(&z, Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END) break;
    out.insert(out.end(), buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(buf.size() - z.avail_out));
    if (max > 0 && static_cast<std::int64_t>(out.size()) > max) break;
    if (rc == Z_OK && z.avail_in == 0 && z.avail_out != 0) break;  // truncated input
  }
  inflateEnd(&z);
  if (rc != Z_STREAM_END) return std::nullopt;
  return out;
}

// One v2 message as a Ferry message with the remoting properties (see the header's list).
V2Result<Message> convert(const v2::Message& m, const std::string& topic, const SendLimits& limits, WallMs now_ms,
                          std::string_view peer_address) {
  const v2::SystemProperties& sp = m.system_properties();
  Message out;
  out.topic = topic;
  // Body.
  if (sp.body_encoding() == v2::GZIP) {
    std::optional<std::vector<std::uint8_t>> body = gunzip(m.body(), limits.max_body_bytes);
    if (!body) return refuse(v2::MESSAGE_CORRUPTED, "message body is not a GZIP stream, or inflates past the max body size");
    out.body = std::move(*body);
  } else {
    out.body.assign(m.body().begin(), m.body().end());
  }
  if (limits.refuse_empty_body && out.body.empty()) return refuse(v2::MESSAGE_BODY_EMPTY, "message body cannot be empty");
  if (limits.max_body_bytes > 0 && static_cast<std::int64_t>(out.body.size()) > limits.max_body_bytes) {
    return refuse(v2::MESSAGE_BODY_TOO_LARGE, fmt::format("message body cannot exceed the max {}", limits.max_body_bytes));
  }
  // User properties, in name order (a protobuf map has no order of its own).
  if (m.user_properties_size() > limits.user_properties_max) {
    return refuse(v2::MESSAGE_PROPERTIES_TOO_LARGE, fmt::format("too many user properties, max is {}", limits.user_properties_max));
  }
  std::vector<std::pair<std::string_view, std::string_view>> user;
  for (const auto& [k, v] : m.user_properties()) user.emplace_back(k, v);
  std::sort(user.begin(), user.end());
  std::int64_t size = 0;
  for (const auto& [k, v] : user) {
    if (is_reserved_property(k)) return refuse(v2::ILLEGAL_MESSAGE_PROPERTY_KEY, fmt::format("property is used by system: {}", k));
    if (has_control(k) || has_control(v)) {
      return refuse(v2::ILLEGAL_MESSAGE_PROPERTY_KEY, fmt::format("the key or value of property {} contains a control character", k));
    }
    size += static_cast<std::int64_t>(k.size() + v.size());
    out.properties.set(k, v);
  }
  // Tag: always written, "" without one.
  const std::string tag = sp.has_tag() ? sp.tag() : std::string();
  if (!tag.empty() && blank(tag)) return refuse(v2::ILLEGAL_MESSAGE_TAG, "tag cannot be the char sequence of whitespace");
  if (tag.find('|') != std::string::npos) return refuse(v2::ILLEGAL_MESSAGE_TAG, "tag cannot contain '|'");
  if (has_control(tag)) return refuse(v2::ILLEGAL_MESSAGE_TAG, "tag cannot contain control character");
  size += static_cast<std::int64_t>(tag.size());
  out.properties.set(prop::kTags, tag);
  // Keys.
  std::string keys;
  for (const std::string& k : sp.keys()) {
    if (!k.empty() && blank(k)) return refuse(v2::ILLEGAL_MESSAGE_KEY, "key cannot be the char sequence of whitespace");
    if (has_control(k)) return refuse(v2::ILLEGAL_MESSAGE_KEY, "key cannot contain control character");
    size += static_cast<std::int64_t>(k.size());
    if (!keys.empty()) keys.push_back(prop::kKeySeparator);
    keys += k;
  }
  if (sp.keys_size() > 0) out.properties.set(prop::kKeys, keys);
  if (size > limits.user_properties_bytes_max) {
    return refuse(v2::MESSAGE_PROPERTIES_TOO_LARGE,
                  fmt::format("the total size of user property is too large, max is {}", limits.user_properties_bytes_max));
  }
  // Message id.
  if (blank(sp.message_id())) return refuse(v2::ILLEGAL_MESSAGE_ID, "message id cannot be empty");
  out.properties.set(prop::kUniqKey, sp.message_id());
  // Transaction.
  if (sp.message_type() == v2::TRANSACTION) {
    out.properties.set(prop::kTransactionPrepared, "true");
    if (sp.has_orphaned_transaction_recovery_duration()) {
      const std::int64_t seconds = sp.orphaned_transaction_recovery_duration().seconds();
      if (seconds < 0 || seconds > limits.transaction_recovery_seconds_max) {
        return refuse(v2::BAD_REQUEST,
                      fmt::format("the max orphaned transaction recovery duration is {} s", limits.transaction_recovery_seconds_max));
      }
      out.properties.set(prop::kCheckImmunityTimeInSeconds, std::to_string(seconds));
    }
  }
  // Delivery time: a timer message.
  if (sp.has_delivery_timestamp()) {
    const std::int64_t at = sp.delivery_timestamp().seconds() * 1000 + sp.delivery_timestamp().nanos() / 1'000'000;
    if (limits.max_delay_ms > 0 && at - now_ms > limits.max_delay_ms) {
      return refuse(v2::ILLEGAL_DELIVERY_TIME, fmt::format("the max delay time of message is too large, max is {}", limits.max_delay_ms));
    }
    out.properties.set(prop::kTimerDeliverMs, std::to_string(at));
  }
  out.properties.set(prop::kReconsumeTime, std::to_string(sp.has_delivery_attempt() ? sp.delivery_attempt() : 0));
  out.properties.set(prop::kProducerGroup, topic);
  // Message group: FIFO.
  if (sp.has_message_group() && !sp.message_group().empty()) {
    const std::string& g = sp.message_group();
    if (blank(g)) return refuse(v2::ILLEGAL_MESSAGE_GROUP, "message group cannot be the char sequence of whitespace");
    if (static_cast<std::int64_t>(g.size()) >= limits.message_group_bytes_max) {
      return refuse(v2::ILLEGAL_MESSAGE_GROUP, fmt::format("message group exceed the max size {}", limits.message_group_bytes_max));
    }
    if (has_control(g)) return refuse(v2::ILLEGAL_MESSAGE_GROUP, "message group cannot contain control character");
    out.properties.set(prop::kShardingKey, g);
  }
  if (sp.has_trace_context() && !sp.trace_context().empty()) out.properties.set("TRACE_CONTEXT", sp.trace_context());
  out.properties.set(prop::kBornHost, blank(sp.born_host()) ? std::string(peer_address) : sp.born_host());
  if (sp.has_born_timestamp()) {
    out.properties.set(prop::kBornTimestamp,
                       std::to_string(sp.born_timestamp().seconds() * 1000 + sp.born_timestamp().nanos() / 1'000'000));
  }
  return out;
}

TopicMessageType type_of(const Message& m) {
  if (m.properties.get(prop::kTransactionPrepared) == std::optional<std::string_view>("true")) return TopicMessageType::transaction;
  if (m.properties.get(prop::kDelay) || m.properties.get(prop::kTimerDeliverMs) || m.properties.get(prop::kTimerDelaySec) ||
      m.properties.get(prop::kTimerDelayMs)) {
    return TopicMessageType::delay;
  }
  if (m.properties.get(prop::kShardingKey)) return TopicMessageType::fifo;
  return TopicMessageType::normal;
}

}  // namespace

std::string_view topic_message_type_name(TopicMessageType t) {
  switch (t) {
    case TopicMessageType::unspecified: return "UNSPECIFIED";
    case TopicMessageType::normal: return "NORMAL";
    case TopicMessageType::fifo: return "FIFO";
    case TopicMessageType::delay: return "DELAY";
    case TopicMessageType::transaction: return "TRANSACTION";
    case TopicMessageType::mixed: return "MIXED";
  }
  return "?";
}

bool is_reserved_property(std::string_view name) {
  return std::find(kReserved.begin(), kReserved.end(), name) != kReserved.end();
}

V2Result<PreparedSend> prepare_send(const v2::SendMessageRequest& request, const SendLimits& limits, WallMs now_ms,
                                    std::string_view peer_address) {
  if (request.messages_size() == 0) return refuse(v2::MESSAGE_CORRUPTED, "no message to send");
  const v2::Resource& first_topic = request.messages(0).topic();
  PreparedSend p;
  p.topic = first_topic.name();
  if (std::optional<Refusal> r = check_topic(p.topic)) return *r;
  for (const v2::Message& m : request.messages()) {
    if (m.topic().name() != first_topic.name() || m.topic().resource_namespace() != first_topic.resource_namespace()) {
      return refuse(v2::MESSAGE_CORRUPTED, "topic in message is not same");
    }
    V2Result<Message> converted = convert(m, p.topic, limits, now_ms, peer_address);
    if (const Refusal* r = refusal(converted)) return *r;
    p.messages.push_back(std::move(std::get<Message>(converted)));
  }
  p.type = type_of(p.messages.front());
  if (p.messages.size() == 1) {
    if (auto g = p.messages.front().properties.get(prop::kShardingKey)) p.message_group = std::string(*g);
  }
  return p;
}

std::optional<Refusal> check_topic_message_type(TopicMessageType expected, TopicMessageType actual) {
  if (expected == TopicMessageType::mixed || expected == actual) return std::nullopt;
  return refuse(v2::MESSAGE_PROPERTY_CONFLICT_WITH_TYPE,
                fmt::format("TopicMessageType validate failed, the expected type is {}, but actual type is {}",
                            topic_message_type_name(expected), topic_message_type_name(actual)));
}

std::int32_t guava_consistent_hash(std::int64_t input, std::int32_t buckets) {
  if (buckets <= 0) return 0;
  // A 64-bit linear congruential generator seeded with the input; jump from bucket to bucket
  // until out of range.
  auto state = static_cast<std::uint64_t>(input);
  std::int64_t candidate = 0;
  for (;;) {
    state = 2862933555777941757ULL * state + 1;
    const double next_double = static_cast<double>(static_cast<std::int32_t>(state >> 33) + 1) / 2147483648.0;
    const double jump = static_cast<double>(candidate + 1) / next_double;
    // Java's (int) of a double saturates at Integer.MAX_VALUE.
    const std::int64_t next = jump >= 2147483647.0 ? INT_MAX : static_cast<std::int64_t>(jump);
    if (next >= 0 && next < buckets) {
      candidate = next;
    } else {
      return static_cast<std::int32_t>(candidate);
    }
  }
}

std::size_t select_fifo_queue(std::string_view group, std::size_t queue_count) {
  if (queue_count == 0) return 0;
  // The int hashCode widens to long with its sign.
  return static_cast<std::size_t>(guava_consistent_hash(java_string_hash(group), static_cast<std::int32_t>(queue_count)));
}

}  // namespace ferry::proxy
