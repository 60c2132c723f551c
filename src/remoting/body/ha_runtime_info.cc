#include "remoting/body/ha_runtime_info.h"

#include "remoting/body/body_json.h"

namespace ferry::remoting::body {

namespace {

void write_int(json::Writer& w, std::string_view key, std::int64_t v) {
  json::write_key(w, key);
  w.Int64(v);
}

void write_uint(json::Writer& w, std::string_view key, std::uint64_t v) {
  json::write_key(w, key);
  w.Uint64(v);
}

void write_bool(json::Writer& w, std::string_view key, bool v) {
  json::write_key(w, key);
  w.Bool(v);
}

// Counters are written unsigned; a negative one in a peer's body reads as 0.
std::uint64_t count_or_zero(json::ObjectReader& r, std::string_view name) {
  const std::int64_t v = r.int64_or(name, 0);
  return v < 0 ? 0 : static_cast<std::uint64_t>(v);
}

}  // namespace

HaConnectionRuntimeInfo HaConnectionRuntimeInfo::read(const rapidjson::Value& v, std::string path,
                                                      json::JsonErrors& errors) {
  json::ObjectReader r(v, std::move(path), errors);
  HaConnectionRuntimeInfo c;
  c.addr = r.optional_string("addr").value_or("");
  c.slave_ack_offset = PhysicalOffset(r.int64_or("slaveAckOffset", 0));
  c.diff_bytes = r.int64_or("diff", 0);
  c.in_sync = r.boolean_or("inSync", false);
  c.transfer_from_where = PhysicalOffset(r.int64_or("transferFromWhere", 0));
  c.diff_ms = r.int64_or("diffMs", 0);
  c.since_last_report_ms = r.int64_or("sinceLastReportMs", 0);
  return c;
}

void HaConnectionRuntimeInfo::write(json::Writer& w) const {
  w.StartObject();
  write_string_field(w, "addr", addr);
  write_int(w, "slaveAckOffset", slave_ack_offset.value());
  write_int(w, "diff", diff_bytes);
  write_bool(w, "inSync", in_sync);
  write_int(w, "transferFromWhere", transfer_from_where.value());
  write_int(w, "diffMs", diff_ms);
  write_int(w, "sinceLastReportMs", since_last_report_ms);
  w.EndObject();
}

HaClientRuntimeInfo HaClientRuntimeInfo::read(const rapidjson::Value& v, std::string path, json::JsonErrors& errors) {
  json::ObjectReader r(v, std::move(path), errors);
  HaClientRuntimeInfo c;
  c.master_addr = r.optional_string("masterAddr").value_or("");
  c.max_offset = PhysicalOffset(r.int64_or("maxOffset", 0));
  c.last_read_timestamp_ms = r.int64_or("lastReadTimestamp", 0);
  c.connected = r.boolean_or("connected", false);
  c.local_addr = r.optional_string("localAddr").value_or("");
  c.reported_offset = PhysicalOffset(r.int64_or("reportedOffset", 0));
  c.links = count_or_zero(r, "links");
  c.bytes = count_or_zero(r, "bytes");
  c.last_drop = r.optional_string("lastDrop").value_or("");
  return c;
}

void HaClientRuntimeInfo::write(json::Writer& w) const {
  w.StartObject();
  write_string_field(w, "masterAddr", master_addr);
  write_int(w, "maxOffset", max_offset.value());
  write_int(w, "lastReadTimestamp", last_read_timestamp_ms);
  write_bool(w, "connected", connected);
  write_string_field(w, "localAddr", local_addr);
  write_int(w, "reportedOffset", reported_offset.value());
  write_uint(w, "links", links);
  write_uint(w, "bytes", bytes);
  write_string_field(w, "lastDrop", last_drop);
  w.EndObject();
}

Result<HaRuntimeInfo> HaRuntimeInfo::decode(Bytes body) {
  auto doc = parse_body(body, "HARuntimeInfo");
  if (!doc) return std::move(doc).error();
  json::JsonErrors errors;
  json::ObjectReader r(*doc, "HARuntimeInfo", errors);
  HaRuntimeInfo h;
  h.master = r.boolean("master");
  h.master_commit_log_max_offset = PhysicalOffset(r.int64_or("masterCommitLogMaxOffset", 0));
  h.in_sync_slave_nums = r.int32_or("inSyncSlaveNums", 0);
  h.ha_connection_info = read_array<HaConnectionRuntimeInfo>(r, "haConnectionInfo", false);
  if (const rapidjson::Value* client = r.optional_object("haClientRuntimeInfo")) {
    h.ha_client_runtime_info = HaClientRuntimeInfo::read(*client, r.path_of("haClientRuntimeInfo"), errors);
  }
  h.broker_role = r.optional_string("brokerRole").value_or("");
  h.links_dropped = count_or_zero(r, "linksDropped");
  h.diverged_links = count_or_zero(r, "divergedLinks");
  h.last_drop = r.optional_string("lastDrop").value_or("");
  if (errors.failed()) return errors.take();
  return h;
}

std::vector<std::uint8_t> HaRuntimeInfo::encode() const {
  return write_body([this](json::Writer& w) {
    w.StartObject();
    write_bool(w, "master", master);
    write_int(w, "masterCommitLogMaxOffset", master_commit_log_max_offset.value());
    json::write_key(w, "inSyncSlaveNums");
    w.Int(in_sync_slave_nums);
    write_array(w, "haConnectionInfo", ha_connection_info);
    json::write_key(w, "haClientRuntimeInfo");
    ha_client_runtime_info.write(w);
    write_string_field(w, "brokerRole", broker_role);
    write_uint(w, "linksDropped", links_dropped);
    write_uint(w, "divergedLinks", diverged_links);
    write_string_field(w, "lastDrop", last_drop);
    w.EndObject();
  });
}

}  // namespace ferry::remoting::body
