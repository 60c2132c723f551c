// HostPort: the born host and store host of a stored message: an IPv4 or IPv6 address and a port,
// stored in a record as the address bytes (4 or 16) followed by the port as an i32.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

#include "runtime/result.h"

namespace ferry {

struct HostPort {
  bool ipv6 = false;
  std::array<std::uint8_t, 16> ip{};  // network order; IPv4 uses ip[0..3], the rest stays zero
  std::int32_t port = 0;

  static HostPort v4(std::uint8_t a, std::uint8_t b, std::uint8_t c, std::uint8_t d,
                     std::int32_t port);
  static HostPort v6(const std::array<std::uint8_t, 16>& ip, std::int32_t port);

  // Address bytes in a record: 4 or 16.
  std::size_t ip_size() const { return ipv6 ? 16 : 4; }
  // Address + port bytes in a record: 8 or 20.
  std::size_t record_size() const { return ip_size() + 4; }

  // Parses "a.b.c.d:port" or "[v6]:port" (v6 as eight hex groups, "::" allowed). The port must
  // be 0..65535. Errors (invalid_argument) quote the text.
  static Result<HostPort> parse(std::string_view text);
  // "a.b.c.d:port" or "[x:x:x:x:x:x:x:x]:port" (lowercase hex groups, no compression).
  std::string to_string() const;

  auto operator<=>(const HostPort&) const = default;
};

}  // namespace ferry
