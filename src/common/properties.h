// Message properties: an insertion-ordered string map, and its RocketMQ text encoding.
//
// Encoding: `key\x01value\x02key\x01value` in the map's order. Writers omit the final \x02;
// readers accept it. Order is kept so that a record decoded and re-encoded is byte for byte the
// same (RocketMQ's Java map order is whatever its writer produced; we keep what we read).
//
// Invariants a Properties may hold freely: any keys and values. Only the encoder checks that the
// text is encodable (a non-empty key, and no \x01 or \x02 in a key or \x02 in a value).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/result.h"

namespace ferry {

inline constexpr char kNameValueSeparator = '\x01';
inline constexpr char kPropertySeparator = '\x02';

class Properties {
 public:
  using Entry = std::pair<std::string, std::string>;

  // The value of `key`, or nullopt. The view lives until the entry is changed or erased.
  std::optional<std::string_view> get(std::string_view key) const;
  bool contains(std::string_view key) const { return find(key) != nullptr; }
  // Replaces the value in place when `key` exists (keeping its position), else appends.
  void set(std::string_view key, std::string_view value);
  // Returns whether the key was present.
  bool erase(std::string_view key);
  void clear() { entries_.clear(); }

  std::size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  auto begin() const { return entries_.begin(); }
  auto end() const { return entries_.end(); }

  // Equal when they hold the same entries in the same order.
  bool operator==(const Properties&) const = default;

 private:
  const Entry* find(std::string_view key) const;
  std::vector<Entry> entries_;
};

// The exact length encode_properties() produces (no trailing \x02).
std::size_t encoded_properties_size(const Properties& props);

// Encodes in order. Errors (invalid_argument): an empty key, a key holding \x01 or \x02, or a
// value holding \x02; the detail names the key.
Result<std::string> encode_properties(const Properties& props);

// Decodes the text encoding. Empty entries (a leading, doubled or trailing \x02) are skipped.
// A value is everything after an entry's first \x01 (it may be empty). A repeated key keeps its
// first position and takes the last value (as RocketMQ's Java map does).
// Errors (corrupt): an entry without \x01, or with an empty key; the detail quotes the entry.
Result<Properties> decode_properties(std::string_view text);

}  // namespace ferry
