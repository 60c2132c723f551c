#include "namesrv/kv_config.h"

#include <fmt/format.h>

#include "remoting/json/json_writer.h"
#include "runtime/assert.h"

namespace ferry::namesrv {

KvConfig::KvConfig(KvLimits limits) : limits_(limits) { limits_.check(); }

Status KvConfig::put(const std::string& name_space, const std::string& key, std::string value) {
  for (const auto& [what, text] : {std::pair<const char*, const std::string*>{"namespace", &name_space}, {"key", &key}}) {
    if (text->empty() || text->size() > limits_.name_bytes_max) {
      return Error(Errc::invalid_argument, fmt::format("KV config {} of {} bytes (1 to {})", what, text->size(), limits_.name_bytes_max));
    }
  }
  if (value.size() > limits_.value_bytes_max) {
    return Error(Errc::invalid_argument,
                 fmt::format("KV config value of {} bytes for {}/{} (max {})", value.size(), name_space, key, limits_.value_bytes_max));
  }
  auto ns = table_.find(name_space);
  const std::string* old = nullptr;
  if (ns != table_.end()) {
    auto kv = ns->second.find(key);
    if (kv != ns->second.end()) old = &kv->second;
  }
  if (old == nullptr && entries_ >= limits_.entries_max) {
    return Error(Errc::busy, fmt::format("KV config full: {} entries", entries_));
  }
  const std::size_t entry_bytes = name_space.size() + key.size() + value.size();
  const std::size_t freed = old == nullptr ? 0 : name_space.size() + key.size() + old->size();
  if (bytes_ - freed + entry_bytes > limits_.total_bytes_max) {
    return Error(Errc::busy, fmt::format("KV config full: {} bytes, the entry needs {} (max {})", bytes_, entry_bytes,
                                         limits_.total_bytes_max));
  }
  bytes_ = bytes_ - freed + entry_bytes;
  table_[name_space][key] = std::move(value);
  if (old == nullptr) ++entries_;
  FERRY_ASSERT_LE(entries_, limits_.entries_max);
  FERRY_ASSERT_LE(bytes_, limits_.total_bytes_max);
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
  if (ns == table_.end()) return false;
  auto kv = ns->second.find(key);
  if (kv == ns->second.end()) return false;
  const std::size_t entry_bytes = name_space.size() + key.size() + kv->second.size();
  FERRY_ASSERT(entries_ > 0 && bytes_ >= entry_bytes, "KV accounting underflows removing {}/{}", name_space, key);
  ns->second.erase(kv);
  --entries_;
  bytes_ -= entry_bytes;
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
