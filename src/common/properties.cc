#include "common/properties.h"

#include <fmt/format.h>

#include <utility>

namespace ferry {
namespace {

// At most 40 characters of `s`, with control characters shown as \xNN, for error details.
std::string quote(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 40)) {
    auto u = static_cast<unsigned char>(c);
    if (u < 0x20 || u == 0x7f) {
      out += fmt::format("\\x{:02x}", u);
    } else {
      out += c;
    }
  }
  if (s.size() > 40) out += "...";
  return out;
}

}  // namespace

std::size_t encoded_properties_size(const Properties& props) {
  std::size_t n = 0;
  for (const auto& [k, v] : props) n += k.size() + 1 + v.size() + 1;
  return n == 0 ? 0 : n - 1;
}

Result<std::string> encode_properties(const Properties& props) {
  std::string out;
  out.reserve(encoded_properties_size(props));
  for (const auto& [k, v] : props) {
    if (k.empty()) return Error(Errc::invalid_argument, "property with an empty key");
    if (k.find_first_of("\x01\x02") != std::string::npos) {
      return Error(Errc::invalid_argument,
                   fmt::format("property key '{}' holds a separator (\\x01 or \\x02)", quote(k)));
    }
    if (v.find(kPropertySeparator) != std::string::npos) {
      return Error(Errc::invalid_argument,
                   fmt::format("value of property '{}' holds the separator \\x02", quote(k)));
    }
    if (!out.empty()) out += kPropertySeparator;
    out += k;
    out += kNameValueSeparator;
    out += v;
  }
  return out;
}

namespace properties_detail {

Error entry_without_separator(std::size_t index, std::string_view entry) {
  return Error(Errc::corrupt, fmt::format("property entry {} has no name/value separator: '{}'",
                                          index, quote(entry)));
}

Error entry_with_empty_key(std::size_t index, std::string_view entry) {
  return Error(Errc::corrupt, fmt::format("property entry {} has an empty key: '{}'", index, quote(entry)));
}

}  // namespace properties_detail

Result<Properties> decode_properties(std::string_view text) {
  OrderedStringMapBuilder props;
  Status read = visit_properties(text, [&](std::string_view k, std::string_view v) {
    props.set(k, v);
    return true;
  });
  if (!read.ok()) return std::move(read).error();
  return std::move(props).take();
}

std::optional<std::string> append_property_if_plain(std::string_view text, std::string_view key,
                                                     std::string_view value,
                                                     std::string_view drop_prefix) {
  // Repeated keys are looked for by comparing each key with those before it: quadratic, so only
  // up to a bound (real sends carry a handful of properties); more keys take the map's way.
  constexpr std::size_t kKeysMax = 32;
  std::string_view keys[kKeysMax];
  std::size_t n = 0;
  std::size_t entries_bytes = 0;
  bool plain = true;
  Status read = visit_properties(text, [&](std::string_view k, std::string_view v) {
    if (n == kKeysMax || k == key || k.starts_with(drop_prefix)) {
      plain = false;
      return false;
    }
    for (std::size_t i = 0; i < n; ++i) {
      if (keys[i] == k) {
        plain = false;
        return false;
      }
    }
    keys[n++] = k;
    entries_bytes += k.size() + 1 + v.size() + 1;
    return true;
  });
  // Every byte of a plain text is in an entry or one separator between two entries: anything
  // more is an empty entry, which the map's way would drop.
  const std::size_t plain_bytes = entries_bytes == 0 ? 0 : entries_bytes - 1;
  if (!read.ok() || !plain || plain_bytes != text.size()) return std::nullopt;
  if (key.empty() || key.find_first_of("\x01\x02") != std::string_view::npos ||
      value.find(kPropertySeparator) != std::string_view::npos) {
    return std::nullopt;
  }
  std::string out;
  out.reserve(text.size() + 1 + key.size() + 1 + value.size());
  out.append(text);
  if (!text.empty()) out += kPropertySeparator;
  out.append(key);
  out += kNameValueSeparator;
  out.append(value);
  return out;
}

}  // namespace ferry
