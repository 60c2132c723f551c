// Strict conversions of header text to numbers and booleans, the way RocketMQ's Java peers write
// them (Integer.toString, Long.toString, Boolean.toString). The whole text must match: no spaces,
// no trailing bytes, no overflow.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace ferry::remoting {

// "-12", "+7", "0" → value; "", "1.0", "12x", " 1", out of range → nullopt.
std::optional<std::int64_t> parse_int64(std::string_view text);
std::optional<std::int32_t> parse_int32(std::string_view text);
// "true"/"false" in any letter case (as Java's Boolean.parseBoolean reads "true") → value;
// anything else → nullopt.
std::optional<bool> parse_bool(std::string_view text);

}  // namespace ferry::remoting
