// Message properties: an insertion-ordered string map (common/ordered_string_map.h), and its
// RocketMQ text encoding.
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

#include "common/ordered_string_map.h"
#include "runtime/result.h"

namespace ferry {

inline constexpr char kNameValueSeparator = '\x01';
inline constexpr char kPropertySeparator = '\x02';

// Properties are an OrderedStringMap (set() replaces in place keeping the position, get() /
// find() look up, == is order-sensitive); this file adds their text encoding.
using Properties = OrderedStringMap;

// The exact length encode_properties() produces (no trailing \x02).
std::size_t encoded_properties_size(const Properties& props);

// Encodes in order. Errors (invalid_argument): an empty key, a key holding \x01 or \x02, or a
// value holding \x02; the detail names the key.
Result<std::string> encode_properties(const Properties& props);

// Decodes the text encoding. Empty entries (a leading, doubled or trailing \x02) are skipped.
// A value is everything after an entry's first \x01 (it may be empty). A repeated key keeps its
// first position and takes the last value (as RocketMQ's Java map does). Linear in the text's
// length, however many keys it holds or repeats.
// Errors (corrupt): an entry without \x01, or with an empty key; the detail quotes the entry.
Result<Properties> decode_properties(std::string_view text);

// Reads a properties text without building a map: calls visit(key, value) for each non-empty
// entry in order (a repeated key is visited each time; the views point into `text`). `visit`
// returns true to go on, false to stop early (not an error). Errors: as decode_properties().
template <typename Visit>
Status visit_properties(std::string_view text, Visit&& visit);

// The text of `text` with the entry `key`/`value` added at the end, when the entries it holds
// re-encode to `text` itself: no empty entry (no leading, doubled or trailing \x02), no
// repeated key, none of `drop_prefix`-prefixed keys, and `key` absent. Then appending is what
// decode_properties() + set() + encode_properties() would produce, without the map. nullopt
// otherwise (the caller takes the map's way), and when `text` is not a valid properties text.
// The broker adds CLUSTER to every message this way (docs/benchmarks.md).
std::optional<std::string> append_property_if_plain(std::string_view text, std::string_view key,
                                                     std::string_view value,
                                                     std::string_view drop_prefix);

namespace properties_detail {
Error entry_without_separator(std::size_t index, std::string_view entry);
Error entry_with_empty_key(std::size_t index, std::string_view entry);
}  // namespace properties_detail

template <typename Visit>
Status visit_properties(std::string_view text, Visit&& visit) {
  std::size_t index = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find(kPropertySeparator, pos);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view entry = text.substr(pos, end - pos);
    pos = end + 1;
    ++index;
    if (entry.empty()) continue;
    const std::size_t sep = entry.find(kNameValueSeparator);
    if (sep == std::string_view::npos) return properties_detail::entry_without_separator(index, entry);
    if (sep == 0) return properties_detail::entry_with_empty_key(index, entry);
    if (!visit(entry.substr(0, sep), entry.substr(sep + 1))) break;
  }
  return Status{};
}

}  // namespace ferry
