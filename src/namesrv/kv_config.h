// KvConfig: the NameServer's namespaced key/value settings (RocketMQ's KVConfigManager), served by
// PUT/GET/DELETE_KV_CONFIG (100/101/102) and GET_KVLIST_BY_NAMESPACE (219). In memory only: a
// restarted NameServer starts empty (RocketMQ persists kvConfig.json; Ferry's operators re-put).
//
// Ordered maps, so a namespace's listing is sorted by key. Bounded by KvLimits::entries_max over
// all namespaces. Single-threaded: call on the NameServer's loop.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "namesrv/namesrv_config.h"
#include "runtime/result.h"

namespace ferry::namesrv {

// The namespace RocketMQ keeps per-topic ordered-message configs in.
inline constexpr const char* kOrderTopicConfigNamespace = "ORDER_TOPIC_CONFIG";

class KvConfig {
 public:
  explicit KvConfig(KvLimits limits);

  // Sets namespace/key to value (replacing an existing value). Errors (nothing changes):
  // invalid_argument for an empty or over-long namespace or key (name_bytes_max) or a value over
  // value_bytes_max; busy when the key is new and the store holds entries_max entries, or the
  // entry would take the store over total_bytes_max.
  Status put(const std::string& name_space, const std::string& key, std::string value);
  // The value, or nullopt when the namespace or key is missing.
  std::optional<std::string> get(const std::string& name_space, const std::string& key) const;
  // Removes the key (and the namespace when it empties). Returns whether it was present.
  bool remove(const std::string& name_space, const std::string& key);

  // RocketMQ's KVTable body for a namespace, {"table":{"k":"v",...}} with keys sorted; nullopt
  // when the namespace holds nothing.
  std::optional<std::vector<std::uint8_t>> encode_namespace(const std::string& name_space) const;

  std::size_t size() const { return entries_; }
  std::size_t bytes() const { return bytes_; }

 private:
  KvLimits limits_;
  std::map<std::string, std::map<std::string, std::string>> table_;  // namespace → key → value
  std::size_t entries_ = 0;
  std::size_t bytes_ = 0;  // namespace + key + value bytes of every entry
};

}  // namespace ferry::namesrv
