#include "remoting/body/register_broker_body.h"

#include "remoting/body/body_json.h"

namespace ferry::remoting::body {

void DataVersion::write(json::Writer& w) const {
  w.StartObject();
  w.Key("counter");
  w.Int64(counter);
  if (state_version != 0) {
    w.Key("stateVersion");
    w.Int64(state_version);
  }
  w.Key("timestamp");
  w.Int64(timestamp);
  w.EndObject();
}

DataVersion DataVersion::read(json::ObjectReader& r) {
  DataVersion v;
  v.counter = r.int64_or("counter", 0);
  v.state_version = r.int64_or("stateVersion", 0);
  v.timestamp = r.int64_or("timestamp", 0);
  return v;
}

Result<RegisterBrokerBody> RegisterBrokerBody::decode(Bytes body) {
  auto doc = parse_body(body, "RegisterBrokerBody");
  if (!doc) return std::move(doc).error();
  json::JsonErrors errors;
  json::ObjectReader r(*doc, "RegisterBrokerBody", errors);
  RegisterBrokerBody b;
  b.filter_server_list = r.string_array("filterServerList");
  const rapidjson::Value* wrapper = r.object("topicConfigSerializeWrapper");
  if (wrapper != nullptr) {
    json::ObjectReader wr(*wrapper, r.path_of("topicConfigSerializeWrapper"), errors);
    if (const rapidjson::Value* dv = wr.optional_object("dataVersion")) {
      json::ObjectReader dr(*dv, wr.path_of("dataVersion"), errors);
      b.topic_config_serialize_wrapper.data_version = DataVersion::read(dr);
    }
    if (const rapidjson::Value* table = wr.optional_object("topicConfigTable")) {
      const std::string path = wr.path_of("topicConfigTable");
      for (auto it = table->MemberBegin(); it != table->MemberEnd() && !errors.failed(); ++it) {
        std::string topic(it->name.GetString(), it->name.GetStringLength());
        TopicConfig c = TopicConfig::read(it->value, fmt::format("{}[\"{}\"]", path, topic), errors);
        b.topic_config_serialize_wrapper.topic_config_table[std::move(topic)] = std::move(c);
      }
    }
  }
  if (errors.failed()) return errors.take();
  return b;
}

std::vector<std::uint8_t> RegisterBrokerBody::encode() const {
  return write_body([this](json::Writer& w) {
    const auto& wrapper = topic_config_serialize_wrapper;
    w.StartObject();
    json::write_key(w, "topicConfigSerializeWrapper");
    w.StartObject();
    json::write_key(w, "topicConfigTable");
    w.StartObject();
    for (const auto& [topic, config] : wrapper.topic_config_table) {
      json::write_key(w, topic);
      config.write(w);
    }
    w.EndObject();
    json::write_key(w, "dataVersion");
    wrapper.data_version.write(w);
    w.EndObject();
    write_string_array(w, "filterServerList", filter_server_list);
    w.EndObject();
  });
}

}  // namespace ferry::remoting::body
