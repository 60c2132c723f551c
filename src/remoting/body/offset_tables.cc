#include "remoting/body/offset_tables.h"

#include "remoting/body/queue_table.h"

namespace ferry::remoting::body {
namespace {

// An offset is a Java Long.
QueueOffset read_offset(const rapidjson::Value& v, const std::string& path, json::JsonErrors& errors) {
  std::optional<std::int64_t> n = json::as_int64(v);
  if (!n) errors.fail(fmt::format("{}: not an integer", path));
  return QueueOffset(n.value_or(0));
}

void write_offset(json::Writer& w, const QueueOffset& o) { w.Int64(o.value()); }

}  // namespace

Result<ResetOffsetBody> ResetOffsetBody::decode(Bytes body) {
  auto doc = parse_body(body, "ResetOffsetBody");
  if (!doc) return std::move(doc).error();
  json::JsonErrors errors;
  json::ObjectReader r(*doc, "ResetOffsetBody", errors);
  ResetOffsetBody b;
  b.offset_table = read_queue_table<QueueOffset>(r, "offsetTable", false, read_offset);
  if (errors.failed()) return errors.take();
  return b;
}

std::vector<std::uint8_t> ResetOffsetBody::encode() const {
  return write_body([this](json::Writer& w) {
    w.StartObject();
    write_queue_table(w, "offsetTable", offset_table, KeyOrder::fastjson, write_offset);
    w.EndObject();
  });
}

Result<GetConsumerStatusBody> GetConsumerStatusBody::decode(Bytes body) {
  auto doc = parse_body(body, "GetConsumerStatusBody");
  if (!doc) return std::move(doc).error();
  json::JsonErrors errors;
  json::ObjectReader r(*doc, "GetConsumerStatusBody", errors);
  GetConsumerStatusBody b;
  b.message_queue_table = read_queue_table<QueueOffset>(r, "messageQueueTable", false, read_offset);
  if (const rapidjson::Value* clients = r.optional_object("consumerTable")) {
    for (auto it = clients->MemberBegin(); it != clients->MemberEnd() && !errors.failed(); ++it) {
      const std::string client(it->name.GetString(), it->name.GetStringLength());
      json::ObjectReader holder(*clients, r.path_of("consumerTable"), errors);
      b.consumer_table[client] = read_queue_table<QueueOffset>(holder, client, false, read_offset);
    }
  }
  if (errors.failed()) return errors.take();
  return b;
}

std::vector<std::uint8_t> GetConsumerStatusBody::encode() const {
  return write_body([this](json::Writer& w) {
    w.StartObject();
    write_queue_table(w, "messageQueueTable", message_queue_table, KeyOrder::fastjson, write_offset);
    json::write_key(w, "consumerTable");
    w.StartObject();
    for (const auto& [client, table] : consumer_table) write_queue_table(w, client, table, KeyOrder::fastjson, write_offset);
    w.EndObject();
    w.EndObject();
  });
}

}  // namespace ferry::remoting::body
