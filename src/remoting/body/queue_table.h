// fastjson's Map<MessageQueue, V> as RocketMQ's bodies carry it: an object whose member names are
// MessageQueue objects, not strings:
//   "offsetTable":{{"brokerName":"broker-a","queueId":0,"topic":"T"}:12,...}
// Bodies: TopicStatsTable (202), ConsumeStats (208), ResetOffsetBody (220, 222),
// GetConsumerStatusBody (221, 223), ConsumerRunningInfo.mqTable (307).
// This is not standard JSON, but it is the only form a Java peer (broker, client, mqadmin, the
// dashboard) reads into a Map<MessageQueue, V>, so Ferry writes it too. json::parse
// (json/json_text.h) turns each key object into a string holding its text; read_queue_table parses
// that text again, so keys a peer already sent as strings holding the key object's JSON are read
// as well.
#pragma once

#include <fmt/format.h>
#include <rapidjson/document.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/message_queue.h"
#include "remoting/body/body_json.h"
#include "remoting/json/json_reader.h"
#include "remoting/json/json_writer.h"

namespace ferry::remoting::body {

template <typename V>
using QueueTable = std::map<MessageQueue, V>;

// The most entries a queue table may hold when read (a broker has at most a few thousand
// queues per topic; this bounds what a hostile body costs). More is an error.
inline constexpr std::size_t kQueueTableEntriesMax = 1'000'000;

// The order of a written key object's fields. A reader takes any order; these two are what the
// bodies have always written, so their bytes stay as they were.
enum class KeyOrder {
  fastjson,       // brokerName, queueId, topic: alphabetical, as Java writes it (220-223, 307)
  message_queue,  // topic, brokerName, queueId: JsonCodec<MessageQueue>'s (202, 208)
};

// The key's text as written in the table: `{"brokerName":..,"queueId":..,"topic":..}` (fastjson).
std::string queue_key_text(const MessageQueue& mq, KeyOrder order);

// Reads a member name of a queue table (the key object's text, json/json_text.h) as a
// MessageQueue; records an error naming `path` when it is not one.
MessageQueue read_queue_key(std::string_view key_text, const std::string& path, json::JsonErrors& errors);

// Reads member `name` of `r` as a queue table, each value with `read_value(value, path, errors)`
// (returning a V). A missing or null member is an empty table unless `required`, then an error.
// Errors go to r.errors() and name the member and the key ("ConsumeStats.offsetTable[key 2]: ..."
// for a key, "...offsetTable[T@broker-a@0]: ..." for a value): a key that is not a MessageQueue,
// a value read_value refuses, the same queue twice, more than kQueueTableEntriesMax entries.
template <typename V, typename ReadV>
QueueTable<V> read_queue_table(json::ObjectReader& r, std::string_view name, bool required, ReadV read_value) {
  QueueTable<V> out;
  const rapidjson::Value* table = required ? r.object(name) : r.optional_object(name);
  if (table == nullptr) return out;
  if (table->MemberCount() > kQueueTableEntriesMax) {
    r.errors().fail(fmt::format("{}: {} entries, more than {}", r.path_of(name), table->MemberCount(),
                                kQueueTableEntriesMax));
    return out;
  }
  std::size_t i = 0;
  for (auto it = table->MemberBegin(); it != table->MemberEnd() && !r.errors().failed(); ++it, ++i) {
    const std::string_view key_text(it->name.GetString(), it->name.GetStringLength());
    MessageQueue mq = read_queue_key(key_text, fmt::format("{}[key {}]", r.path_of(name), i), r.errors());
    if (r.errors().failed()) return out;
    const std::string path = fmt::format("{}[{}]", r.path_of(name), mq.to_string());
    V value = read_value(it->value, path, r.errors());
    if (r.errors().failed()) return out;
    if (!out.emplace(std::move(mq), std::move(value)).second) {
      r.errors().fail(fmt::format("{}: duplicate queue", path));
    }
  }
  return out;
}

// read_queue_table with each value read by JsonCodec<V>::read (body_json.h).
template <typename V>
QueueTable<V> read_queue_table(json::ObjectReader& r, std::string_view name, bool required) {
  return read_queue_table<V>(r, name, required, JsonCodec<V>::read);
}

// Writes `"name":{KEY:VALUE,...}`, the keys in `order`, each value with `write_value(json::Writer&,
// const V&)`.
template <typename V, typename WriteV>
void write_queue_table(json::Writer& w, std::string_view name, const QueueTable<V>& table, KeyOrder order,
                       WriteV write_value) {
  std::string text = "{";
  for (const auto& [mq, value] : table) {
    if (text.size() > 1) text.push_back(',');
    text += queue_key_text(mq, order);
    text.push_back(':');
    const std::vector<std::uint8_t> v = write_body([&, &value = value](json::Writer& vw) { write_value(vw, value); });
    text.append(v.begin(), v.end());
  }
  text.push_back('}');
  json::write_key(w, name);
  w.RawValue(text.data(), text.size(), rapidjson::kObjectType);
}

// write_queue_table with each value written by JsonCodec<V>::write (body_json.h).
template <typename V>
void write_queue_table(json::Writer& w, std::string_view name, const QueueTable<V>& table, KeyOrder order) {
  write_queue_table(w, name, table, order, JsonCodec<V>::write);
}

}  // namespace ferry::remoting::body
