#include "remoting/body/connection.h"

#include "remoting/body/body_json.h"

namespace ferry::remoting::body {

namespace {

std::vector<Connection> read_connections(json::ObjectReader& r) {
  const rapidjson::Value* a = r.array("connectionSet");
  if (a != nullptr && a->Size() > kConnectionsMax) {
    r.errors().fail(fmt::format("{}: {} connections, more than {}", r.path_of("connectionSet"), a->Size(), kConnectionsMax));
    return {};
  }
  return read_array<Connection>(r, "connectionSet", true);
}

}  // namespace

Connection Connection::read(const rapidjson::Value& v, std::string path, json::JsonErrors& e) {
  json::ObjectReader r(v, std::move(path), e);
  Connection c;
  c.client_id = r.string("clientId");
  c.client_addr = r.optional_string("clientAddr").value_or("");
  c.language = r.optional_string("language").value_or("");
  c.version = r.int32_or("version", 0);
  return c;
}

void Connection::write(json::Writer& w) const {
  w.StartObject();
  write_string_field(w, "clientAddr", client_addr);
  write_string_field(w, "clientId", client_id);
  write_string_field(w, "language", language);
  json::write_key(w, "version");
  w.Int(version);
  w.EndObject();
}

Result<ConsumerConnection> ConsumerConnection::decode(Bytes body) {
  auto doc = parse_body(body, "ConsumerConnection");
  if (!doc) return std::move(doc).error();
  json::JsonErrors errors;
  json::ObjectReader r(*doc, "ConsumerConnection", errors);
  ConsumerConnection c;
  c.connection_set = read_connections(r);
  if (const rapidjson::Value* subs = r.optional_object("subscriptionTable"); subs != nullptr && !errors.failed()) {
    for (auto it = subs->MemberBegin(); it != subs->MemberEnd() && !errors.failed(); ++it) {
      const std::string topic(it->name.GetString(), it->name.GetStringLength());
      c.subscription_table[topic] =
          SubscriptionData::read(it->value, fmt::format("{}[{}]", r.path_of("subscriptionTable"), topic), errors);
    }
  }
  c.consume_type = read_enum(r, "consumeType", consume_type_from_name, c.consume_type);
  c.message_model = read_enum(r, "messageModel", message_model_from_name, c.message_model);
  c.consume_from_where = read_enum(r, "consumeFromWhere", consume_from_where_from_name, c.consume_from_where);
  if (errors.failed()) return errors.take();
  return c;
}

std::vector<std::uint8_t> ConsumerConnection::encode() const {
  return write_body([this](json::Writer& w) {
    w.StartObject();
    write_array(w, "connectionSet", connection_set);
    write_string_field(w, "consumeFromWhere", name(consume_from_where));
    write_string_field(w, "consumeType", name(consume_type));
    write_string_field(w, "messageModel", name(message_model));
    json::write_key(w, "subscriptionTable");
    w.StartObject();
    for (const auto& [topic, sub] : subscription_table) {
      json::write_key(w, topic);
      sub.write(w);
    }
    w.EndObject();
    w.EndObject();
  });
}

Result<ProducerConnection> ProducerConnection::decode(Bytes body) {
  auto doc = parse_body(body, "ProducerConnection");
  if (!doc) return std::move(doc).error();
  json::JsonErrors errors;
  json::ObjectReader r(*doc, "ProducerConnection", errors);
  ProducerConnection p;
  p.connection_set = read_connections(r);
  if (errors.failed()) return errors.take();
  return p;
}

std::vector<std::uint8_t> ProducerConnection::encode() const {
  return write_body([this](json::Writer& w) {
    w.StartObject();
    write_array(w, "connectionSet", connection_set);
    w.EndObject();
  });
}

}  // namespace ferry::remoting::body
