// Timestamps as file names: "yyyyMMddHHmmssSSS" (17 digits), RocketMQ's IndexFile naming.
//
// Ferry formats the node's wall clock in UTC (RocketMQ uses the JVM's time zone); the names
// only need to sort in creation order, which IndexService guarantees separately.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/time.h"

namespace ferry::store {

inline constexpr std::size_t kTimeNameDigits = 17;

// "20231114221320000" for 1700000000000. `ms` must be >= 0 and before year 10000.
std::string time_file_name(WallMs ms);
// The inverse; nullopt unless `name` is 17 digits naming a valid UTC date and time.
std::optional<WallMs> parse_time_file_name(std::string_view name);

}  // namespace ferry::store
