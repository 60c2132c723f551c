#include "remoting/body/properties_text.h"

#include <fmt/format.h>

namespace ferry::remoting::body {

namespace {

std::string_view trim(std::string_view s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return {};
  const auto e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

}  // namespace

std::string properties_text(const std::map<std::string, std::string>& settings) {
  std::string out;
  for (const auto& [k, v] : settings) out += fmt::format("{}={}\n", k, v);
  return out;
}

Result<std::map<std::string, std::string>> parse_properties_text(std::string_view text) {
  std::map<std::string, std::string> out;
  std::size_t line_no = 0;
  while (!text.empty()) {
    const auto nl = text.find('\n');
    const std::string_view line = trim(text.substr(0, nl));
    text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
    if (++line_no > kPropertiesLinesMax) {
      return Error(Errc::invalid_argument, fmt::format("more than {} lines", kPropertiesLinesMax));
    }
    if (line.empty() || line.front() == '#' || line.front() == '!') continue;
    const auto eq = line.find('=');
    if (eq == std::string_view::npos) {
      return Error(Errc::invalid_argument, fmt::format("line {}: expected key=value, got \"{}\"", line_no, line));
    }
    const std::string key(trim(line.substr(0, eq)));
    if (key.empty()) return Error(Errc::invalid_argument, fmt::format("line {}: an empty key", line_no));
    if (!out.emplace(key, std::string(trim(line.substr(eq + 1)))).second) {
      return Error(Errc::invalid_argument, fmt::format("line {}: key '{}' given twice", line_no, key));
    }
  }
  return out;
}

}  // namespace ferry::remoting::body
