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

Result<Properties> decode_properties(std::string_view text) {
  OrderedStringMapBuilder props;
  std::size_t index = 0;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t end = text.find(kPropertySeparator, pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view entry = text.substr(pos, end - pos);
    pos = end + 1;
    ++index;
    if (entry.empty()) continue;
    std::size_t sep = entry.find(kNameValueSeparator);
    if (sep == std::string_view::npos) {
      return Error(Errc::corrupt, fmt::format("property entry {} has no name/value separator: '{}'",
                                              index, quote(entry)));
    }
    if (sep == 0) {
      return Error(Errc::corrupt,
                   fmt::format("property entry {} has an empty key: '{}'", index, quote(entry)));
    }
    props.set(entry.substr(0, sep), entry.substr(sep + 1));
  }
  return std::move(props).take();
}

}  // namespace ferry
