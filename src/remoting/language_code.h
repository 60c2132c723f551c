// LanguageCode: which client library sent a command. The numeric code travels in the binary
// header (int8), the name in the JSON header ("JAVA").
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace ferry::remoting {

enum class LanguageCode : std::uint8_t {
  JAVA = 0,
  CPP = 1,
  DOTNET = 2,
  PYTHON = 3,
  DELPHI = 4,
  ERLANG = 5,
  RUBY = 6,
  OTHER = 7,
  HTTP = 8,
  GO = 9,
  PHP = 10,
  OMS = 11,
  RUST = 12,
};

inline constexpr std::uint8_t kLanguageCodeMax = 12;

// "JAVA" for JAVA; every enumerator has a name.
std::string_view language_name(LanguageCode c);
// The language named `name` (exact, upper case), or nullopt.
std::optional<LanguageCode> language_from_name(std::string_view name);
// The language with numeric code `code`, or nullopt when no language has it.
std::optional<LanguageCode> language_from_code(int code);

}  // namespace ferry::remoting
