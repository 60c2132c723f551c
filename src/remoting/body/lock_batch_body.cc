#include "remoting/body/lock_batch_body.h"

#include "remoting/body/body_json.h"

namespace ferry::remoting::body {

Result<LockBatchRequestBody> LockBatchRequestBody::decode(Bytes body) {
  auto doc = parse_body(body, "LockBatchRequestBody");
  if (!doc) return std::move(doc).error();
  json::JsonErrors errors;
  json::ObjectReader r(*doc, "LockBatchRequestBody", errors);
  LockBatchRequestBody b;
  b.consumer_group = r.string("consumerGroup");
  b.client_id = r.string("clientId");
  b.only_this_broker = r.boolean_or("onlyThisBroker", false);
  b.mq_set = read_array<MessageQueue>(r, "mqSet", false);
  if (errors.failed()) return errors.take();
  return b;
}

std::vector<std::uint8_t> LockBatchRequestBody::encode() const {
  return write_body([this](json::Writer& w) {
    w.StartObject();
    write_string_field(w, "consumerGroup", consumer_group);
    write_string_field(w, "clientId", client_id);
    w.Key("onlyThisBroker");
    w.Bool(only_this_broker);
    write_array(w, "mqSet", mq_set);
    w.EndObject();
  });
}

Result<LockBatchResponseBody> LockBatchResponseBody::decode(Bytes body) {
  auto doc = parse_body(body, "LockBatchResponseBody");
  if (!doc) return std::move(doc).error();
  json::JsonErrors errors;
  json::ObjectReader r(*doc, "LockBatchResponseBody", errors);
  LockBatchResponseBody b;
  b.lock_ok_mq_set = read_array<MessageQueue>(r, "lockOKMQSet", false);
  if (errors.failed()) return errors.take();
  return b;
}

std::vector<std::uint8_t> LockBatchResponseBody::encode() const {
  return write_body([this](json::Writer& w) {
    w.StartObject();
    write_array(w, "lockOKMQSet", lock_ok_mq_set);
    w.EndObject();
  });
}

}  // namespace ferry::remoting::body
