// Finds one property in the encoded properties text (`k\x01v\x02k\x01v`, see
// common/properties.h) without decoding the whole map or allocating: the dispatch hot path
// reads only TAGS, KEYS and UNIQ_KEY. A repeated key yields its last value, as the decoder does.
#pragma once

#include <optional>
#include <string_view>

#include "common/properties.h"

namespace ferry::store {

inline std::optional<std::string_view> find_property(std::string_view text, std::string_view key) {
  std::optional<std::string_view> found;
  while (!text.empty()) {
    const auto end = text.find(kPropertySeparator);
    const std::string_view entry = text.substr(0, end);
    const auto sep = entry.find(kNameValueSeparator);
    if (sep != std::string_view::npos && entry.substr(0, sep) == key) found = entry.substr(sep + 1);
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return found;
}

// The three properties dispatch reads, found in one pass (same rules as find_property).
struct DispatchProperties {
  std::optional<std::string_view> tags;
  std::optional<std::string_view> keys;
  std::optional<std::string_view> uniq_key;
};

inline DispatchProperties find_dispatch_properties(std::string_view text) {
  DispatchProperties found;
  while (!text.empty()) {
    const auto end = text.find(kPropertySeparator);
    const std::string_view entry = text.substr(0, end);
    const auto sep = entry.find(kNameValueSeparator);
    if (sep != std::string_view::npos) {
      const std::string_view name = entry.substr(0, sep);
      const std::string_view value = entry.substr(sep + 1);
      if (name == prop::kTags) {
        found.tags = value;
      } else if (name == prop::kKeys) {
        found.keys = value;
      } else if (name == prop::kUniqKey) {
        found.uniq_key = value;
      }
    }
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return found;
}

}  // namespace ferry::store
