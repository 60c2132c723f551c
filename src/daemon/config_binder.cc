#include "daemon/config_binder.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "common/host_port.h"
#include "runtime/assert.h"

namespace ferry::daemon {

Result<std::int64_t> parse_int_in(std::string_view text, std::int64_t min, std::int64_t max) {
  std::int64_t n = 0;
  std::string_view digits = text;
  if (!digits.empty() && digits.front() == '+') digits.remove_prefix(1);
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), n);
  if (digits.empty() || ec == std::errc::invalid_argument || end != digits.data() + digits.size()) {
    return Error(Errc::invalid_argument, fmt::format("\"{}\" is not an integer", text));
  }
  if (ec == std::errc::result_out_of_range || n < min || n > max) {
    return Error(Errc::invalid_argument, fmt::format("{} is out of range [{}, {}]", text, min, max));
  }
  return n;
}

Result<bool> parse_bool(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (lower == "true") return true;
  if (lower == "false") return false;
  return Error(Errc::invalid_argument, fmt::format("\"{}\" is not a boolean (true or false)", text));
}

Error config_error(const std::string& file, std::size_t line, std::string_view key, std::string_view what) {
  if (line == 0) return Error(Errc::invalid_argument, fmt::format("{}: {}: {}", file, key, what));
  return Error(Errc::invalid_argument, fmt::format("{}:{}: {}: {}", file, line, key, what));
}

void ConfigBinder::bind(std::string key, Setter set) {
  FERRY_ASSERT(!setters_.contains(key) && !ignored_.contains(key), "config key {} bound twice", key);
  setters_.emplace(std::move(key), std::move(set));
}

void ConfigBinder::bind_bool(std::string key, bool& field) {
  bind(std::move(key), [&field](std::string_view v) -> Status {
    auto b = parse_bool(v);
    if (!b) return std::move(b).error();
    field = *b;
    return Status();
  });
}

void ConfigBinder::bind_string(std::string key, std::string& field, bool allow_empty) {
  bind(std::move(key), [&field, allow_empty](std::string_view v) -> Status {
    if (v.empty() && !allow_empty) return Error(Errc::invalid_argument, "must not be empty");
    field = std::string(v);
    return Status();
  });
}

void ConfigBinder::bind_ms(std::string key, Duration& field, std::int64_t min_ms, std::int64_t max_ms) {
  bind(std::move(key), [&field, min_ms, max_ms](std::string_view v) -> Status {
    auto n = parse_int_in(v, min_ms, max_ms);
    if (!n) return std::move(n).error();
    field = std::chrono::milliseconds(*n);
    return Status();
  });
}

void ConfigBinder::ignore(std::string key, std::string why) {
  FERRY_ASSERT(!setters_.contains(key) && !ignored_.contains(key), "config key {} bound twice", key);
  ignored_.emplace(std::move(key), std::move(why));
}

bool ConfigBinder::knows(std::string_view key) const { return setters_.contains(key) || ignored_.contains(key); }

Result<ConfigBinder::Applied> ConfigBinder::apply(const PropertiesFile& file) const {
  Applied out;
  out.warnings = file.duplicates;
  for (const Property& p : file.entries) {
    if (auto it = setters_.find(p.key); it != setters_.end()) {
      Status s = it->second(p.value);
      if (!s) return config_error(file.file, p.line, p.key, s.error().detail);
      out.lines[p.key] = p.line;
    } else if (auto ig = ignored_.find(p.key); ig != ignored_.end()) {
      out.warnings.push_back(fmt::format("{}:{}: {} is ignored: {}", file.file, p.line, p.key, ig->second));
    } else {
      out.warnings.push_back(fmt::format("{}:{}: unknown key {} ignored", file.file, p.line, p.key));
    }
  }
  return out;
}

Status check_ipv4(std::string_view host) {
  auto hp = HostPort::parse(fmt::format("{}:0", host));
  if (!hp || hp->ipv6) return Error(Errc::invalid_argument, fmt::format("\"{}\" is not an IPv4 address", host));
  return Status();
}

Result<std::vector<std::string>> parse_namesrv_addr(std::string_view text) {
  std::vector<std::string> out;
  while (true) {
    const auto semi = text.find(';');
    std::string_view item = text.substr(0, semi);
    while (!item.empty() && (item.front() == ' ' || item.front() == '\t')) item.remove_prefix(1);
    while (!item.empty() && (item.back() == ' ' || item.back() == '\t')) item.remove_suffix(1);
    if (!item.empty()) {
      auto ep = HostPort::parse(item);
      if (!ep || ep->ipv6 || ep->port == 0) {
        return Error(Errc::invalid_argument, fmt::format("\"{}\" is not an IPv4 address with a port (ip:port)", item));
      }
      out.emplace_back(item);
    }
    if (semi == std::string_view::npos) break;
    text.remove_prefix(semi + 1);
  }
  if (out.empty()) return Error(Errc::invalid_argument, "no address (expected ip:port;ip:port)");
  return out;
}

}  // namespace ferry::daemon
