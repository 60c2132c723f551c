#include "remoting/body/broker_data.h"

#include "remoting/body/body_json.h"
#include "remoting/decimal_text.h"

namespace ferry::remoting::body {

BrokerData BrokerData::read(const rapidjson::Value& v, std::string path, json::JsonErrors& errors) {
  json::ObjectReader r(v, std::move(path), errors);
  BrokerData b;
  b.cluster = r.string("cluster");
  b.broker_name = r.string("brokerName");
  const rapidjson::Value* addrs = r.optional_object("brokerAddrs");
  if (addrs == nullptr) return b;
  for (auto it = addrs->MemberBegin(); it != addrs->MemberEnd(); ++it) {
    const std::string_view key(it->name.GetString(), it->name.GetStringLength());
    const auto id = parse_int64(key);
    auto addr = json::as_string(it->value);
    if (!id || !addr) {
      errors.fail(fmt::format("{}[\"{}\"]: want an integer brokerId mapped to an address",
                              r.path_of("brokerAddrs"), key));
      return b;
    }
    b.broker_addrs[*id] = std::move(*addr);
  }
  return b;
}

void BrokerData::write(json::Writer& w) const {
  w.StartObject();
  write_string_field(w, "cluster", cluster);
  write_string_field(w, "brokerName", broker_name);
  json::write_key(w, "brokerAddrs");
  w.StartObject();
  for (const auto& [id, addr] : broker_addrs) {
    json::write_key(w, std::to_string(id));
    json::write_string(w, addr);
  }
  w.EndObject();
  w.EndObject();
}

}  // namespace ferry::remoting::body
