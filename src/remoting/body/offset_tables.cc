#include "remoting/body/offset_tables.h"

#include "remoting/body/mq_keyed_map.h"

namespace ferry::remoting::body {
namespace {

QueueOffset read_offset(const rapidjson::Value& v, const std::string& path, json::JsonErrors& errors) {
  return QueueOffset(read_int64_value(v, path, errors));
}

void write_offset(json::Writer& w, const QueueOffset& o) { w.Int64(o.value()); }

}  // namespace

Result<ResetOffsetBody> ResetOffsetBody::decode(Bytes body) {
  auto doc = parse_body_with_object_keys(body, "ResetOffsetBody");
  if (!doc) return std::move(doc).error();
  json::JsonErrors errors;
  json::ObjectReader r(*doc, "ResetOffsetBody", errors);
  ResetOffsetBody b;
  b.offset_table = read_mq_map<QueueOffset>(r, "offsetTable", read_offset);
  if (errors.failed()) return errors.take();
  return b;
}

std::vector<std::uint8_t> ResetOffsetBody::encode() const {
  return write_body([this](json::Writer& w) {
    w.StartObject();
    write_mq_map(w, "offsetTable", offset_table, write_offset);
    w.EndObject();
  });
}

Result<GetConsumerStatusBody> GetConsumerStatusBody::decode(Bytes body) {
  auto doc = parse_body_with_object_keys(body, "GetConsumerStatusBody");
  if (!doc) return std::move(doc).error();
  json::JsonErrors errors;
  json::ObjectReader r(*doc, "GetConsumerStatusBody", errors);
  GetConsumerStatusBody b;
  b.message_queue_table = read_mq_map<QueueOffset>(r, "messageQueueTable", read_offset);
  if (const rapidjson::Value* clients = r.optional_object("consumerTable")) {
    for (auto it = clients->MemberBegin(); it != clients->MemberEnd() && !errors.failed(); ++it) {
      const std::string client(it->name.GetString(), it->name.GetStringLength());
      json::ObjectReader holder(*clients, r.path_of("consumerTable"), errors);
      b.consumer_table[client] = read_mq_map<QueueOffset>(holder, client, read_offset);
    }
  }
  if (errors.failed()) return errors.take();
  return b;
}

std::vector<std::uint8_t> GetConsumerStatusBody::encode() const {
  return write_body([this](json::Writer& w) {
    w.StartObject();
    write_mq_map(w, "messageQueueTable", message_queue_table, write_offset);
    json::write_key(w, "consumerTable");
    w.StartObject();
    for (const auto& [client, table] : consumer_table) write_mq_map(w, client, table, write_offset);
    w.EndObject();
    w.EndObject();
  });
}

}  // namespace ferry::remoting::body
