#include "remoting/decimal_text.h"

#include <charconv>
#include <limits>

namespace ferry::remoting {
namespace {

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char c = a[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != b[i]) return false;
  }
  return true;
}

}  // namespace

std::optional<std::int64_t> parse_int64(std::string_view text) {
  if (text.size() >= 2 && text[0] == '+' && text[1] >= '0' && text[1] <= '9') text.remove_prefix(1);
  if (text.empty()) return std::nullopt;
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v, 10);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return v;
}

std::optional<std::int32_t> parse_int32(std::string_view text) {
  const auto v = parse_int64(text);
  if (!v || *v < std::numeric_limits<std::int32_t>::min() ||
      *v > std::numeric_limits<std::int32_t>::max()) {
    return std::nullopt;
  }
  return static_cast<std::int32_t>(*v);
}

std::optional<bool> parse_bool(std::string_view text) {
  if (iequals(text, "true")) return true;
  if (iequals(text, "false")) return false;
  return std::nullopt;
}

}  // namespace ferry::remoting
