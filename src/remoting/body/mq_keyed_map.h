// Map<MessageQueue, V> in JSON bodies, in fastjson's form: the key object is the member name,
//   "offsetTable":{{"brokerName":"broker-a","queueId":0,"topic":"T"}:12,...}
// (json/object_keys.h). Ferry writes this form too, although it is not standard JSON, because it
// is the only one Java RocketMQ peers read into a Map<MessageQueue, V>; key fields are written in
// fastjson's (alphabetical) order. Readers accept it, and also keys that are already strings
// holding the key object's JSON.
#pragma once

#include <fmt/format.h>
#include <rapidjson/document.h>

#include <map>
#include <string>
#include <string_view>

#include "common/message_queue.h"
#include "remoting/body/body_json.h"
#include "remoting/json/json_reader.h"
#include "remoting/json/json_writer.h"
#include "runtime/bytes.h"
#include "runtime/result.h"

namespace ferry::remoting::body {

// parse_body() for a body that may hold object keys. Errors (Errc::corrupt): as parse_body, and a
// key object that never closes.
Result<rapidjson::Document> parse_body_with_object_keys(Bytes bytes, std::string_view type_name);

// A member name holding a MessageQueue's JSON; records an error naming `path` when it is not one.
MessageQueue read_mq_key(std::string_view key_text, const std::string& path, json::JsonErrors& errors);
// `{"brokerName":..,"queueId":..,"topic":..}`.
std::string mq_key_text(const MessageQueue& mq);

// Reads member `name` as a MessageQueue-keyed map; missing or null is empty. `read_value(value,
// path, errors)` returns a V. A duplicate key records an error.
template <typename V, typename ReadV>
std::map<MessageQueue, V> read_mq_map(json::ObjectReader& r, std::string_view name, ReadV read_value) {
  std::map<MessageQueue, V> out;
  const rapidjson::Value* obj = r.optional_object(name);
  if (obj == nullptr) return out;
  for (auto it = obj->MemberBegin(); it != obj->MemberEnd() && !r.errors().failed(); ++it) {
    const std::string_view key(it->name.GetString(), it->name.GetStringLength());
    const std::string path = fmt::format("{}[{}]", r.path_of(name), key);
    MessageQueue mq = read_mq_key(key, path, r.errors());
    if (r.errors().failed()) break;
    V v = read_value(it->value, path, r.errors());
    if (!out.emplace(std::move(mq), std::move(v)).second) r.errors().fail(fmt::format("{}: duplicate queue", path));
  }
  return out;
}

// Writes `"name":{...}` in fastjson's form; `write_value(json::Writer&, const V&)` writes one value.
template <typename V, typename WriteV>
void write_mq_map(json::Writer& w, std::string_view name, const std::map<MessageQueue, V>& m, WriteV write_value) {
  std::string text = "{";
  for (const auto& [mq, v] : m) {
    if (text.size() > 1) text.push_back(',');
    text += mq_key_text(mq);
    text.push_back(':');
    const std::vector<std::uint8_t> value = write_body([&](json::Writer& vw) { write_value(vw, v); });
    text.append(value.begin(), value.end());
  }
  text.push_back('}');
  json::write_key(w, name);
  w.RawValue(text.data(), text.size(), rapidjson::kObjectType);
}

// The common value: an offset (Java Long).
inline std::int64_t read_int64_value(const rapidjson::Value& v, const std::string& path, json::JsonErrors& errors) {
  std::optional<std::int64_t> n = json::as_int64(v);
  if (!n) errors.fail(fmt::format("{}: not an integer", path));
  return n.value_or(0);
}

}  // namespace ferry::remoting::body
