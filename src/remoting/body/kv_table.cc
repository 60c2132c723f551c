#include "remoting/body/kv_table.h"

#include "remoting/body/body_json.h"

namespace ferry::remoting::body {

Result<KvTable> KvTable::decode(Bytes body) {
  auto doc = parse_body(body, "KVTable");
  if (!doc) return std::move(doc).error();
  json::JsonErrors errors;
  json::ObjectReader r(*doc, "KVTable", errors);
  const rapidjson::Value* table = r.object("table");
  if (errors.failed()) return errors.take();
  KvTable out;
  for (auto it = table->MemberBegin(); it != table->MemberEnd(); ++it) {
    const std::string key(it->name.GetString(), it->name.GetStringLength());
    const rapidjson::Value& v = it->value;
    if (v.IsString()) {
      out.table[key] = std::string(v.GetString(), v.GetStringLength());
    } else if (v.IsInt64()) {
      out.table[key] = std::to_string(v.GetInt64());
    } else if (v.IsUint64()) {
      out.table[key] = std::to_string(v.GetUint64());
    } else if (v.IsBool()) {
      out.table[key] = v.GetBool() ? "true" : "false";
    } else if (v.IsDouble()) {
      out.table[key] = fmt::format("{}", v.GetDouble());
    } else if (v.IsNull()) {
      out.table[key] = "";
    } else {
      return Error(Errc::invalid_argument, fmt::format("{}: not a string", r.path_of("table") + "." + key));
    }
  }
  return out;
}

std::vector<std::uint8_t> KvTable::encode() const {
  return write_body([this](json::Writer& w) {
    w.StartObject();
    json::write_key(w, "table");
    w.StartObject();
    for (const auto& [key, value] : table) {
      json::write_key(w, key);
      json::write_string(w, value);
    }
    w.EndObject();
    w.EndObject();
  });
}

std::optional<std::string> KvTable::get(const std::string& key) const {
  auto it = table.find(key);
  if (it == table.end()) return std::nullopt;
  return it->second;
}

}  // namespace ferry::remoting::body
