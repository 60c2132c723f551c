// fastjson's Map<MessageQueue, V> as RocketMQ's admin bodies carry it (TopicStatsTable,
// ConsumeStats): an object whose keys are MessageQueue objects, not strings:
//   {{"brokerName":"broker-a","queueId":0,"topic":"T"}:{"maxOffset":3,...},...}
// This is not standard JSON. json::parse (json/json_text.h) turns each key object into a string
// holding its text; read_queue_table parses that text again. write_queue_table writes the keys as
// objects, as a fastjson reader (mqadmin, the dashboard) expects them.
#pragma once

#include <fmt/format.h>
#include <rapidjson/document.h>

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/message_queue.h"
#include "remoting/body/body_json.h"
#include "remoting/body/message_queue.h"
#include "remoting/json/json_reader.h"
#include "remoting/json/json_text.h"

namespace ferry::remoting::body {

template <typename V>
using QueueTable = std::map<MessageQueue, V>;

// The most entries a queue table may hold when read (a broker has at most a few thousand
// queues per topic; this bounds what a hostile body costs). More is an error.
inline constexpr std::size_t kQueueTableEntriesMax = 1'000'000;

// Reads member `name` of `r` as a queue table, each value with JsonCodec<V>::read. Errors go to
// r.errors(), naming the member and the key ("ConsumeStats.offsetTable: key 2 ...").
template <typename V>
QueueTable<V> read_queue_table(json::ObjectReader& r, std::string_view name) {
  QueueTable<V> out;
  const rapidjson::Value* table = r.object(name);
  if (table == nullptr) return out;
  if (table->MemberCount() > kQueueTableEntriesMax) {
    r.errors().fail(fmt::format("{}: {} entries, more than {}", r.path_of(name), table->MemberCount(),
                                kQueueTableEntriesMax));
    return out;
  }
  std::size_t i = 0;
  for (auto it = table->MemberBegin(); it != table->MemberEnd() && !r.errors().failed(); ++it, ++i) {
    const std::string path = fmt::format("{}[key {}]", r.path_of(name), i);
    const std::string_view key_text(it->name.GetString(), it->name.GetStringLength());
    auto key_doc = json::parse(key_text, json::Numbers::typed, path);
    if (!key_doc.ok()) {
      r.errors().fail(key_doc.error().detail);
      return out;
    }
    MessageQueue mq = JsonCodec<MessageQueue>::read(*key_doc, path, r.errors());
    V value = JsonCodec<V>::read(it->value, fmt::format("{}[{}]", r.path_of(name), mq.to_string()), r.errors());
    if (r.errors().failed()) return out;
    out.emplace(std::move(mq), std::move(value));
  }
  return out;
}

// Appends `"name":{MQ:V,...}` to `out` (the caller writes the enclosing braces and commas).
template <typename V>
void write_queue_table(std::string& out, std::string_view name, const QueueTable<V>& table) {
  out += fmt::format("\"{}\":{{", name);
  bool first = true;
  for (const auto& [mq, value] : table) {
    if (!first) out.push_back(',');
    first = false;
    const auto key = write_body([&mq](json::Writer& w) { JsonCodec<MessageQueue>::write(w, mq); });
    out.append(key.begin(), key.end());
    out.push_back(':');
    const auto v = write_body([&value](json::Writer& w) { JsonCodec<V>::write(w, value); });
    out.append(v.begin(), v.end());
  }
  out.push_back('}');
}

}  // namespace ferry::remoting::body
