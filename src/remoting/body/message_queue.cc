#include "remoting/body/message_queue.h"

namespace ferry::remoting::body {

MessageQueue JsonCodec<MessageQueue>::read(const rapidjson::Value& v, std::string path,
                                           json::JsonErrors& errors) {
  json::ObjectReader r(v, std::move(path), errors);
  MessageQueue q;
  q.topic = r.string("topic");
  q.broker_name = r.string("brokerName");
  q.queue_id = QueueId(r.int32("queueId"));
  return q;
}

void JsonCodec<MessageQueue>::write(json::Writer& w, const MessageQueue& mq) {
  w.StartObject();
  write_string_field(w, "topic", mq.topic);
  write_string_field(w, "brokerName", mq.broker_name);
  w.Key("queueId");
  w.Int(mq.queue_id.value());
  w.EndObject();
}

}  // namespace ferry::remoting::body
