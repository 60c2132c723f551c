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

}  // namespace ferry::store
