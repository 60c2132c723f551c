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

}  // namespace ferry
