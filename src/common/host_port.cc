#include "common/host_port.h"

#include <fmt/format.h>

#include <charconv>
#include <vector>

namespace ferry {
namespace {

Result<std::uint32_t> parse_uint(std::string_view s, int base, std::uint32_t max,
                                 std::string_view text) {
  std::uint32_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (s.empty() || ec != std::errc() || p != s.data() + s.size() || v > max) {
    return Error(Errc::invalid_argument, fmt::format("bad number '{}' in address '{}'", s, text));
  }
  return v;
}

Result<std::array<std::uint8_t, 4>> parse_v4(std::string_view s, std::string_view text) {
  std::array<std::uint8_t, 4> out{};
  for (int i = 0; i < 4; ++i) {
    std::size_t dot = (i < 3) ? s.find('.') : s.size();
    if (dot == std::string_view::npos) {
      return Error(Errc::invalid_argument, fmt::format("IPv4 address needs 4 parts: '{}'", text));
    }
    auto part = parse_uint(s.substr(0, dot), 10, 255, text);
    if (!part) return std::move(part).error();
    out[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(*part);
    s = (i < 3) ? s.substr(dot + 1) : std::string_view{};
  }
  return out;
}

// Splits on ':' (empty parts kept).
std::vector<std::string_view> split_colons(std::string_view s) {
  std::vector<std::string_view> parts;
  while (true) {
    std::size_t c = s.find(':');
    parts.push_back(s.substr(0, c));
    if (c == std::string_view::npos) break;
    s = s.substr(c + 1);
  }
  return parts;
}

Result<std::array<std::uint8_t, 16>> parse_v6(std::string_view s, std::string_view text) {
  std::vector<std::uint16_t> head;
  std::vector<std::uint16_t> tail;
  bool compressed = false;
  std::size_t gap = s.find("::");
  auto parse_groups = [&](std::string_view part, std::vector<std::uint16_t>& out) -> Status {
    if (part.empty()) return {};
    for (std::string_view g : split_colons(part)) {
      if (g.size() > 4) {
        return Error(Errc::invalid_argument, fmt::format("bad IPv6 group in '{}'", text));
      }
      auto v = parse_uint(g, 16, 0xffff, text);
      if (!v) return std::move(v).error();
      out.push_back(static_cast<std::uint16_t>(*v));
    }
    return {};
  };
  if (gap != std::string_view::npos) {
    compressed = true;
    FERRY_TRY(parse_groups(s.substr(0, gap), head));
    FERRY_TRY(parse_groups(s.substr(gap + 2), tail));
  } else {
    FERRY_TRY(parse_groups(s, head));
  }
  std::size_t n = head.size() + tail.size();
  if ((compressed && n > 7) || (!compressed && n != 8)) {
    return Error(Errc::invalid_argument, fmt::format("IPv6 address needs 8 groups: '{}'", text));
  }
  std::array<std::uint8_t, 16> out{};
  for (std::size_t i = 0; i < head.size(); ++i) {
    out[2 * i] = static_cast<std::uint8_t>(head[i] >> 8);
    out[2 * i + 1] = static_cast<std::uint8_t>(head[i]);
  }
  for (std::size_t i = 0; i < tail.size(); ++i) {
    std::size_t g = 8 - tail.size() + i;
    out[2 * g] = static_cast<std::uint8_t>(tail[i] >> 8);
    out[2 * g + 1] = static_cast<std::uint8_t>(tail[i]);
  }
  return out;
}

}  // namespace

HostPort HostPort::v4(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d,
                      std::int32_t port) {
  HostPort h;
  h.ip[0] = a;
  h.ip[1] = b;
  h.ip[2] = c;
  h.ip[3] = d;
  h.port = port;
  return h;
}

HostPort HostPort::v6(const std::array<std::uint8_t, 16>& ip, std::int32_t port) {
  HostPort h;
  h.ipv6 = true;
  h.ip = ip;
  h.port = port;
  return h;
}

Result<HostPort> HostPort::parse(std::string_view text) {
  std::size_t colon = text.rfind(':');
  if (colon == std::string_view::npos) {
    return Error(Errc::invalid_argument, fmt::format("address without port: '{}'", text));
  }
  auto port = parse_uint(text.substr(colon + 1), 10, 65535, text);
  if (!port) return std::move(port).error();
  std::string_view host = text.substr(0, colon);
  HostPort h;
  h.port = static_cast<std::int32_t>(*port);
  if (!host.empty() && host.front() == '[') {
    if (host.size() < 2 || host.back() != ']') {
      return Error(Errc::invalid_argument, fmt::format("unclosed '[' in address '{}'", text));
    }
    auto ip = parse_v6(host.substr(1, host.size() - 2), text);
    if (!ip) return std::move(ip).error();
    h.ipv6 = true;
    h.ip = *ip;
    return h;
  }
  auto ip = parse_v4(host, text);
  if (!ip) return std::move(ip).error();
  for (std::size_t i = 0; i < 4; ++i) h.ip[i] = (*ip)[i];
  return h;
}

std::string HostPort::to_string() const {
  if (!ipv6) return fmt::format("{}.{}.{}.{}:{}", ip[0], ip[1], ip[2], ip[3], port);
  std::string s = "[";
  for (std::size_t g = 0; g < 8; ++g) {
    if (g > 0) s += ':';
    s += fmt::format("{:x}", (unsigned{ip[2 * g]} << 8) | ip[2 * g + 1]);
  }
  return fmt::format("{}]:{}", s, port);
}

}  // namespace ferry
