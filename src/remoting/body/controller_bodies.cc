#include "remoting/body/controller_bodies.h"

#include <fmt/format.h>

#include "remoting/body/body_json.h"

namespace ferry::remoting::body {
namespace {

void write_ids(json::Writer& w, std::string_view name, const std::set<std::int64_t>& ids) {
  json::write_key(w, name);
  w.StartArray();
  for (std::int64_t id : ids) w.Int64(id);
  w.EndArray();
}

void write_replicas(json::Writer& w, std::string_view name, const std::vector<ReplicaIdentity>& replicas) {
  json::write_key(w, name);
  w.StartArray();
  for (const ReplicaIdentity& r : replicas) {
    w.StartObject();
    write_string_field(w, "brokerName", r.broker_name);
    w.Key("brokerId");
    w.Int64(r.broker_id);
    write_string_field(w, "brokerAddress", r.broker_address);
    w.Key("alive");
    w.Bool(r.alive);
    w.EndObject();
  }
  w.EndArray();
}

std::vector<ReplicaIdentity> read_replicas(json::ObjectReader& r, std::string_view name) {
  std::vector<ReplicaIdentity> out;
  const rapidjson::Value* a = r.optional_array(name);
  if (a == nullptr) return out;
  for (rapidjson::SizeType i = 0; i < a->Size() && !r.errors().failed(); ++i) {
    json::ObjectReader item((*a)[i], fmt::format("{}[{}]", r.path_of(name), i), r.errors());
    ReplicaIdentity id;
    id.broker_name = item.string("brokerName");
    id.broker_id = item.int64("brokerId");
    id.broker_address = item.string("brokerAddress");
    id.alive = item.boolean_or("alive", false);
    out.push_back(std::move(id));
  }
  return out;
}

}  // namespace

Result<BrokerReplicasInfo> BrokerReplicasInfo::decode(Bytes body) {
  auto doc = parse_body(body, "BrokerReplicasInfo");
  if (!doc) return std::move(doc).error();
  json::JsonErrors errors;
  json::ObjectReader r(*doc, "BrokerReplicasInfo", errors);
  BrokerReplicasInfo out;
  if (const rapidjson::Value* table = r.optional_object("replicasInfoTable")) {
    for (auto m = table->MemberBegin(); m != table->MemberEnd() && !errors.failed(); ++m) {
      const std::string name(m->name.GetString(), m->name.GetStringLength());
      json::ObjectReader info(m->value, "BrokerReplicasInfo.replicasInfoTable." + name, errors);
      ReplicasInfo ri;
      ri.master_broker_id = info.int64_or("masterBrokerId", -1);
      ri.master_address = info.optional_string("masterAddress").value_or("");
      ri.master_epoch = info.int32_or("masterEpoch", 0);
      ri.sync_state_set_epoch = info.int32_or("syncStateSetEpoch", 0);
      ri.in_sync_replicas = read_replicas(info, "inSyncReplicas");
      ri.not_in_sync_replicas = read_replicas(info, "notInSyncReplicas");
      out.replicas_info_table.emplace(name, std::move(ri));
    }
  }
  if (errors.failed()) return errors.take();
  return out;
}

Result<SyncStateSet> SyncStateSet::decode(Bytes body) {
  auto doc = parse_body(body, "SyncStateSet");
  if (!doc) return std::move(doc).error();
  json::JsonErrors errors;
  json::ObjectReader r(*doc, "SyncStateSet", errors);
  SyncStateSet s;
  s.sync_state_set_epoch = r.int32("syncStateSetEpoch");
  if (const rapidjson::Value* ids = r.optional_array("syncStateSet")) {
    for (rapidjson::SizeType i = 0; i < ids->Size(); ++i) {
      auto id = json::as_int64((*ids)[i]);
      if (!id) {
        errors.fail(fmt::format("SyncStateSet.syncStateSet[{}] is not a broker id", i));
        break;
      }
      s.sync_state_set.insert(*id);
    }
  }
  if (errors.failed()) return errors.take();
  return s;
}

std::vector<std::uint8_t> SyncStateSet::encode() const {
  return write_body([this](json::Writer& w) {
    w.StartObject();
    write_ids(w, "syncStateSet", sync_state_set);
    w.Key("syncStateSetEpoch");
    w.Int(sync_state_set_epoch);
    w.EndObject();
  });
}

std::vector<std::uint8_t> EpochEntryCache::encode() const {
  return write_body([this](json::Writer& w) {
    w.StartObject();
    w.Key("brokerId");
    w.Int64(broker_id);
    write_string_field(w, "brokerName", broker_name);
    write_string_field(w, "clusterName", cluster_name);
    w.Key("epochList");
    w.StartArray();
    for (const Entry& e : epoch_list) {
      w.StartObject();
      w.Key("endOffset");
      w.Int64(e.end_offset);
      w.Key("epoch");
      w.Int(e.epoch);
      w.Key("startOffset");
      w.Int64(e.start_offset);
      w.EndObject();
    }
    w.EndArray();
    w.Key("maxOffset");
    w.Int64(max_offset);
    w.EndObject();
  });
}

Result<EpochEntryCache> EpochEntryCache::decode(Bytes body) {
  auto doc = parse_body(body, "EpochEntryCache");
  if (!doc) return std::move(doc).error();
  json::JsonErrors errors;
  json::ObjectReader r(*doc, "EpochEntryCache", errors);
  EpochEntryCache c;
  c.broker_id = r.int64("brokerId");
  c.broker_name = r.string("brokerName");
  c.cluster_name = r.string("clusterName");
  c.max_offset = r.int64("maxOffset");
  if (const rapidjson::Value* list = r.optional_array("epochList")) {
    for (rapidjson::SizeType i = 0; i < list->Size() && !errors.failed(); ++i) {
      json::ObjectReader e((*list)[i], fmt::format("EpochEntryCache.epochList[{}]", i), errors);
      Entry entry;
      entry.epoch = e.int32("epoch");
      entry.start_offset = e.int64("startOffset");
      entry.end_offset = e.int64("endOffset");
      c.epoch_list.push_back(entry);
    }
  }
  if (errors.failed()) return errors.take();
  return c;
}

std::vector<std::uint8_t> ElectMasterResponseBody::encode() const {
  return write_body([this](json::Writer& w) {
    w.StartObject();
    if (has_member_group) {
      w.Key("brokerMemberGroup");
      w.StartObject();
      write_string_field(w, "cluster", cluster);
      write_string_field(w, "brokerName", broker_name);
      w.Key("brokerAddrs");
      w.StartObject();
      for (const auto& [id, addr] : broker_addrs) {
        json::write_key(w, std::to_string(id));
        json::write_string(w, addr);
      }
      w.EndObject();
      w.EndObject();
    }
    write_ids(w, "syncStateSet", sync_state_set);
    w.EndObject();
  });
}

Result<std::vector<std::string>> parse_name_list(Bytes body) {
  auto doc = parse_body(body, "brokerNames");
  if (!doc) return std::move(doc).error();
  if (!doc->IsArray()) return Error(Errc::invalid_argument, "brokerNames: the body is not a JSON list");
  std::vector<std::string> names;
  for (rapidjson::SizeType i = 0; i < doc->Size(); ++i) {
    const rapidjson::Value& v = (*doc)[i];
    if (!v.IsString()) return Error(Errc::invalid_argument, fmt::format("brokerNames[{}] is not a string", i));
    names.emplace_back(v.GetString(), v.GetStringLength());
  }
  return names;
}

std::vector<std::uint8_t> write_name_list(const std::vector<std::string>& names) {
  return write_body([&names](json::Writer& w) {
    w.StartArray();
    for (const std::string& n : names) json::write_string(w, n);
    w.EndArray();
  });
}

std::vector<std::uint8_t> BrokerReplicasInfo::encode() const {
  return write_body([this](json::Writer& w) {
    w.StartObject();
    w.Key("replicasInfoTable");
    w.StartObject();
    for (const auto& [name, info] : replicas_info_table) {
      json::write_key(w, name);
      w.StartObject();
      w.Key("masterBrokerId");
      w.Int64(info.master_broker_id);
      write_string_field(w, "masterAddress", info.master_address);
      w.Key("masterEpoch");
      w.Int(info.master_epoch);
      w.Key("syncStateSetEpoch");
      w.Int(info.sync_state_set_epoch);
      write_replicas(w, "inSyncReplicas", info.in_sync_replicas);
      write_replicas(w, "notInSyncReplicas", info.not_in_sync_replicas);
      w.EndObject();
    }
    w.EndObject();
    w.EndObject();
  });
}

}  // namespace ferry::remoting::body
