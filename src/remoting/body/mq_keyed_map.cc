#include "remoting/body/mq_keyed_map.h"

#include "remoting/json/json_text.h"
#include "remoting/json/object_keys.h"

namespace ferry::remoting::body {

Result<rapidjson::Document> parse_body_with_object_keys(Bytes bytes, std::string_view type_name) {
  Result<std::string> text = json::quote_object_keys(as_text(bytes));
  if (!text.ok()) return Error(Errc::corrupt, fmt::format("{} body: malformed JSON: {}", type_name, text.error().detail));
  return json::parse(*text, json::Numbers::typed, fmt::format("{} body", type_name));
}

MessageQueue read_mq_key(std::string_view key_text, const std::string& path, json::JsonErrors& errors) {
  Result<rapidjson::Document> doc = json::parse(key_text, json::Numbers::typed, "message queue key");
  if (!doc.ok()) {
    errors.fail(fmt::format("{}: the key is not a message queue: {}", path, doc.error().detail));
    return {};
  }
  json::ObjectReader r(*doc, path, errors);
  MessageQueue q;
  q.topic = r.string("topic");
  q.broker_name = r.string("brokerName");
  q.queue_id = QueueId(r.int32("queueId"));
  return q;
}

std::string mq_key_text(const MessageQueue& mq) {
  const std::vector<std::uint8_t> b = write_body([&](json::Writer& w) {
    w.StartObject();
    write_string_field(w, "brokerName", mq.broker_name);
    w.Key("queueId");
    w.Int(mq.queue_id.value());
    write_string_field(w, "topic", mq.topic);
    w.EndObject();
  });
  return std::string(b.begin(), b.end());
}

}  // namespace ferry::remoting::body
