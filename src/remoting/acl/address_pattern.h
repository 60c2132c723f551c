// AddressPattern: a whitelist entry of plain_acl.yml (globalWhiteRemoteAddresses, an account's
// whiteRemoteAddress), matched against the IPv4 address a connection came from. The forms of
// RocketMQ's RemoteAddressStrategyFactory:
//   ""  (blank)                      matches nothing
//   "*", "*.*.*.*", "*:*:*:*:*:*:*:*"  matches every address
//   "192.168.1.10"                    exactly that address
//   "192.168.1.*", "192.168.*.*"      any value from the first '*' on
//   "192.168.1.1-100", "10.1-5.*.*"   a range in the first non-exact octet (the later ones '*')
//   "192.168.1.{1,5,9}"               those last octets
//   "10.0.0.1,10.0.0.2"               those addresses
// Stricter than RocketMQ, which ignores what follows a range ("10.1-5.7.7" matches 10.3.0.0 there):
// octets after a '*' or a range must be '*', and an octet is a decimal 0..255 without leading
// zeros. IPv6 patterns other than the all-'*' one are refused (Ferry listens on IPv4 only).
// parse() errors say what is wrong with the text; matches() never fails.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>

#include "runtime/result.h"

namespace ferry::remoting::acl {

class AddressPattern {
 public:
  // A blank pattern: matches nothing.
  AddressPattern() = default;
  static Result<AddressPattern> parse(std::string_view text);

  // `ipv4` is a dotted IPv4 address (a connection's peer host); anything else matches only "*".
  bool matches(std::string_view ipv4) const;
  const std::string& text() const { return text_; }

 private:
  enum class Kind : std::uint8_t { none, any, listed, range };
  Kind kind_ = Kind::none;
  std::string text_;
  std::set<std::string> listed_;            // Kind::listed: exact addresses
  std::array<std::uint8_t, 4> octets_{};    // Kind::range: the exact octets before `index_`
  std::size_t index_ = 0;                   // Kind::range: the octet that ranges (1..3)
  int low_ = 0;                             // Kind::range: [low_, high_] for that octet
  int high_ = 0;
};

// Parses a dotted IPv4 address into its octets; nullopt unless it is exactly four decimal octets
// 0..255 without leading zeros (what Java's InetAddressValidator accepts).
std::optional<std::array<std::uint8_t, 4>> parse_ipv4(std::string_view text);

}  // namespace ferry::remoting::acl
