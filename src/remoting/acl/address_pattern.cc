#include "remoting/acl/address_pattern.h"

#include <fmt/format.h>

#include <vector>

#include "runtime/assert.h"

namespace ferry::remoting::acl {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  while (true) {
    const auto at = s.find(sep);
    out.push_back(s.substr(0, at));
    if (at == std::string_view::npos) return out;
    s.remove_prefix(at + 1);
  }
}

std::optional<int> octet(std::string_view s) {
  if (s.empty() || s.size() > 3) return std::nullopt;
  if (s.size() > 1 && s.front() == '0') return std::nullopt;
  int v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  if (v > 255) return std::nullopt;
  return v;
}

Error bad(std::string_view text, std::string_view what) {
  return Error(Errc::invalid_argument, fmt::format("address pattern \"{}\": {}", text, what));
}

}  // namespace

std::optional<std::array<std::uint8_t, 4>> parse_ipv4(std::string_view text) {
  const std::vector<std::string_view> parts = split(text, '.');
  if (parts.size() != 4) return std::nullopt;
  std::array<std::uint8_t, 4> out{};
  for (std::size_t i = 0; i < 4; ++i) {
    const auto v = octet(parts[i]);
    if (!v) return std::nullopt;
    out[i] = static_cast<std::uint8_t>(*v);
  }
  return out;
}

Result<AddressPattern> AddressPattern::parse(std::string_view raw) {
  const std::string_view text = trim(raw);
  AddressPattern p;
  p.text_ = std::string(text);
  if (text.empty()) return p;
  if (text == "*" || text == "*.*.*.*" || text == "*:*:*:*:*:*:*:*") {
    p.kind_ = Kind::any;
    return p;
  }
  if (text.find(':') != std::string_view::npos) return bad(text, "IPv6 patterns are not supported (Ferry listens on IPv4 only)");
  if (!text.empty() && text.back() == '}') {
    const auto open = text.rfind('{');
    const auto last_dot = text.rfind('.');
    if (open == std::string_view::npos || last_dot == std::string_view::npos || open != last_dot + 1) {
      return bad(text, "a list in braces must be the last octet, as in 192.168.1.{1,2}");
    }
    const std::string_view head = text.substr(0, open);
    p.kind_ = Kind::listed;
    for (std::string_view item : split(text.substr(open + 1, text.size() - open - 2), ',')) {
      item = trim(item);
      if (item.empty()) continue;
      const std::string address = std::string(head) + std::string(item);
      if (!parse_ipv4(address)) return bad(text, fmt::format("\"{}\" is not an IPv4 address", address));
      p.listed_.insert(address);
    }
    if (p.listed_.empty()) return bad(text, "the list in braces is empty");
    return p;
  }
  if (text.find(',') != std::string_view::npos) {
    p.kind_ = Kind::listed;
    for (std::string_view item : split(text, ',')) {
      item = trim(item);
      if (item.empty()) continue;
      if (!parse_ipv4(item)) return bad(text, fmt::format("\"{}\" is not an IPv4 address", item));
      p.listed_.insert(std::string(item));
    }
    return p;
  }
  if (text.find('*') == std::string_view::npos && text.find('-') == std::string_view::npos) {
    if (!parse_ipv4(text)) return bad(text, "not an IPv4 address");
    p.kind_ = Kind::listed;
    p.listed_.insert(std::string(text));
    return p;
  }
  // A range: exact octets, then one '*' or 'a-b' octet (not the first), then only '*'.
  const std::vector<std::string_view> parts = split(text, '.');
  if (parts.size() != 4) return bad(text, "expected four octets");
  p.kind_ = Kind::range;
  std::size_t i = 0;
  for (; i < 4; ++i) {
    const std::string_view part = trim(parts[i]);
    if (part == "*" || part.find('-') != std::string_view::npos) break;
    const auto v = octet(part);
    if (!v) return bad(text, fmt::format("octet {} \"{}\" is not a number 0..255", i + 1, part));
    p.octets_[i] = static_cast<std::uint8_t>(*v);
  }
  if (i == 0) return bad(text, "the first octet must be a number");
  FERRY_ASSERT(i < 4, "pattern {} has '*' or '-' yet no ranging octet", text);
  p.index_ = i;
  const std::string_view ranging = trim(parts[i]);
  if (ranging == "*") {
    p.low_ = 0;
    p.high_ = 255;
  } else {
    const auto dash = ranging.find('-');
    const auto lo = octet(trim(ranging.substr(0, dash)));
    const auto hi = octet(trim(ranging.substr(dash + 1)));
    if (!lo || !hi || *lo > *hi) return bad(text, fmt::format("\"{}\" is not a range a-b with 0 <= a <= b <= 255", ranging));
    p.low_ = *lo;
    p.high_ = *hi;
  }
  for (std::size_t j = i + 1; j < 4; ++j) {
    if (trim(parts[j]) != "*") return bad(text, fmt::format("octet {} must be '*' after a range or '*'", j + 1));
  }
  return p;
}

bool AddressPattern::matches(std::string_view ipv4) const {
  switch (kind_) {
    case Kind::none: return false;
    case Kind::any: return true;
    case Kind::listed: return listed_.contains(std::string(ipv4));
    case Kind::range: {
      const auto octets = parse_ipv4(ipv4);
      if (!octets) return false;
      for (std::size_t j = 0; j < index_; ++j) {
        if ((*octets)[j] != octets_[j]) return false;
      }
      const int v = (*octets)[index_];
      return v >= low_ && v <= high_;
    }
  }
  return false;
}

}  // namespace ferry::remoting::acl
