#include "remoting/body/broker_live_table.h"

#include "remoting/body/body_json.h"

namespace ferry::remoting::body {

Result<BrokerLiveTable> BrokerLiveTable::decode(Bytes body) {
  auto doc = parse_body(body, "BrokerLiveTable");
  if (!doc) return std::move(doc).error();
  json::JsonErrors errors;
  json::ObjectReader r(*doc, "BrokerLiveTable", errors);
  BrokerLiveTable t;
  if (const rapidjson::Value* table = r.object("brokerLiveTable")) {
    const std::string path = r.path_of("brokerLiveTable");
    for (auto it = table->MemberBegin(); it != table->MemberEnd() && !errors.failed(); ++it) {
      std::string addr(it->name.GetString(), it->name.GetStringLength());
      json::ObjectReader er(it->value, fmt::format("{}[\"{}\"]", path, addr), errors);
      BrokerLiveEntry e;
      e.age_millis = er.int64("ageMillis");
      e.ha_server_addr = er.optional_string("haServerAddr").value_or("");
      if (!errors.failed() && e.age_millis < 0) {
        errors.fail(fmt::format("{}: {} is negative", er.path_of("ageMillis"), e.age_millis));
      }
      t.brokers.emplace(std::move(addr), std::move(e));
    }
  }
  if (errors.failed()) return errors.take();
  return t;
}

std::vector<std::uint8_t> BrokerLiveTable::encode() const {
  return write_body([this](json::Writer& w) {
    w.StartObject();
    json::write_key(w, "brokerLiveTable");
    w.StartObject();
    for (const auto& [addr, e] : brokers) {
      json::write_key(w, addr);
      w.StartObject();
      json::write_key(w, "ageMillis");
      w.Int64(e.age_millis);
      json::write_key(w, "haServerAddr");
      json::write_string(w, e.ha_server_addr);
      w.EndObject();
    }
    w.EndObject();
    w.EndObject();
  });
}

}  // namespace ferry::remoting::body
