// RocketMQ's KVTable body: {"table":{"key":"value",...}} — the reply of GET_BROKER_RUNTIME_INFO
// (28) and GET_KVLIST_BY_NAMESPACE (219). Every value travels as a string; numbers a fastjson peer
// wrote unquoted are read as their text. Keys are written sorted (std::map).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "runtime/bytes.h"
#include "runtime/result.h"

namespace ferry::remoting::body {

struct KvTable {
  std::map<std::string, std::string> table;

  // Errors: Errc::corrupt for malformed JSON, Errc::invalid_argument naming the field's path
  // (a missing "table", a value that is an object or an array).
  static Result<KvTable> decode(Bytes body);
  std::vector<std::uint8_t> encode() const;

  // The value of `key`, or nullopt.
  std::optional<std::string> get(const std::string& key) const;
  bool operator==(const KvTable&) const = default;
};

}  // namespace ferry::remoting::body
