#include "remoting/body/message_queue.h"

#include "remoting/body/body_json.h"

namespace ferry::remoting::body {

MessageQueue MessageQueue::read(const rapidjson::Value& v, std::string path,
                                json::JsonErrors& errors) {
  json::ObjectReader r(v, std::move(path), errors);
  MessageQueue q;
  q.topic = r.string("topic");
  q.broker_name = r.string("brokerName");
  q.queue_id = r.int32("queueId");
  return q;
}

void MessageQueue::write(json::Writer& w) const {
  w.StartObject();
  write_string_field(w, "topic", topic);
  write_string_field(w, "brokerName", broker_name);
  w.Key("queueId");
  w.Int(queue_id);
  w.EndObject();
}

}  // namespace ferry::remoting::body
