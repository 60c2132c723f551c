#include "remoting/body/queue_table.h"

#include "remoting/body/message_queue.h"
#include "remoting/json/json_text.h"

namespace ferry::remoting::body {

std::string queue_key_text(const MessageQueue& mq, KeyOrder order) {
  const std::vector<std::uint8_t> b = write_body([&](json::Writer& w) {
    if (order == KeyOrder::message_queue) {
      JsonCodec<MessageQueue>::write(w, mq);
      return;
    }
    w.StartObject();
    write_string_field(w, "brokerName", mq.broker_name);
    w.Key("queueId");
    w.Int(mq.queue_id.value());
    write_string_field(w, "topic", mq.topic);
    w.EndObject();
  });
  return std::string(b.begin(), b.end());
}

MessageQueue read_queue_key(std::string_view key_text, const std::string& path, json::JsonErrors& errors) {
  Result<rapidjson::Document> doc = json::parse(key_text, json::Numbers::typed, "message queue key");
  if (!doc.ok()) {
    errors.fail(fmt::format("{}: the key is not a message queue: {}", path, doc.error().detail));
    return {};
  }
  return JsonCodec<MessageQueue>::read(*doc, path, errors);
}

}  // namespace ferry::remoting::body
