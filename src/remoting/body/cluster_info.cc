#include "remoting/body/cluster_info.h"

#include "remoting/body/body_json.h"

namespace ferry::remoting::body {

Result<ClusterInfo> ClusterInfo::decode(Bytes body) {
  auto doc = parse_body(body, "ClusterInfo");
  if (!doc) return std::move(doc).error();
  json::JsonErrors errors;
  json::ObjectReader r(*doc, "ClusterInfo", errors);
  ClusterInfo c;
  if (const rapidjson::Value* table = r.optional_object("brokerAddrTable")) {
    const std::string path = r.path_of("brokerAddrTable");
    for (auto it = table->MemberBegin(); it != table->MemberEnd() && !errors.failed(); ++it) {
      std::string name(it->name.GetString(), it->name.GetStringLength());
      BrokerData b = BrokerData::read(it->value, fmt::format("{}[\"{}\"]", path, name), errors);
      c.broker_addr_table[std::move(name)] = std::move(b);
    }
  }
  if (const rapidjson::Value* table = r.optional_object("clusterAddrTable")) {
    json::ObjectReader tr(*table, r.path_of("clusterAddrTable"), errors);
    for (auto it = table->MemberBegin(); it != table->MemberEnd() && !errors.failed(); ++it) {
      const std::string cluster(it->name.GetString(), it->name.GetStringLength());
      c.cluster_addr_table[cluster] = tr.string_array(cluster);
    }
  }
  if (errors.failed()) return errors.take();
  return c;
}

std::vector<std::uint8_t> ClusterInfo::encode() const {
  return write_body([this](json::Writer& w) {
    w.StartObject();
    json::write_key(w, "brokerAddrTable");
    w.StartObject();
    for (const auto& [name, broker] : broker_addr_table) {
      json::write_key(w, name);
      broker.write(w);
    }
    w.EndObject();
    json::write_key(w, "clusterAddrTable");
    w.StartObject();
    for (const auto& [cluster, names] : cluster_addr_table) write_string_array(w, cluster, names);
    w.EndObject();
    w.EndObject();
  });
}

}  // namespace ferry::remoting::body
