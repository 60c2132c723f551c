#include "namesrv/kv_config.h"

#include <fmt/format.h>

#include "remoting/json/json_writer.h"
#include "runtime/assert.h"

namespace ferry::namesrv {

KvConfig::KvConfig(KvLimits limits) : limits_(limits) { limits_.check(); }

Status KvConfig::put(const std::string& name_space, const std::string& key, std::string value) {
  auto ns = table_.find(name_space);
  const bool present = ns != table_.end() && ns->second.count(key) > 0;
  if (!present && entries_ >= limits_.entries_max) {
    return Error(Errc::busy, fmt::format("KV config full: {} entries", entries_));
  }
  table_[name_space][key] = std::move(value);
  if (!present) ++entries_;
  FERRY_ASSERT_LE(entries_, limits_.entries_max);
  return {};
}

std::optional<std::string> KvConfig::get(const std::string& name_space, const std::string& key) const {
  auto ns = table_.find(name_space);
  if (ns == table_.end()) return std::nullopt;
  auto kv = ns->second.find(key);
  if (kv == ns->second.end()) return std::nullopt;
  return kv->second;
}

bool KvConfig::remove(const std::string& name_space, const std::string& key) {
  auto ns = table_.find(name_space);
  if (ns == table_.end() || ns->second.erase(key) == 0) return false;
  FERRY_ASSERT(entries_ > 0, "KV entry count underflows removing {}/{}", name_space, key);
  --entries_;
  if (ns->second.empty()) table_.erase(ns);
  return true;
}

std::optional<std::vector<std::uint8_t>> KvConfig::encode_namespace(const std::string& name_space) const {
  auto ns = table_.find(name_space);
  if (ns == table_.end() || ns->second.empty()) return std::nullopt;
  std::vector<std::uint8_t> out;
  remoting::json::ByteStream stream(out);
  remoting::json::Writer w(stream);
  w.StartObject();
  remoting::json::write_key(w, "table");
  w.StartObject();
  for (const auto& [key, value] : ns->second) {
    remoting::json::write_key(w, key);
    remoting::json::write_string(w, value);
  }
  w.EndObject();
  w.EndObject();
  return out;
}

}  // namespace ferry::namesrv
