// Delayed delivery levels: a message with DELAY=n (1..18) is delivered after level n's delay.
// RocketMQ's default messageDelayLevel is "1s 5s 10s 30s 1m 2m 3m 4m 5m 6m 7m 8m 9m 10m 20m 30m
// 1h 2h"; a broker may configure another table with parse_delay_levels().
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "runtime/result.h"
#include "runtime/time.h"

namespace ferry {

inline constexpr std::array<std::int64_t, 18> kDefaultDelayLevelsMs = {
    1'000,   5'000,   10'000,  30'000,  60'000,    120'000,   180'000,   240'000,   300'000,
    360'000, 420'000, 480'000, 540'000, 600'000, 1'200'000, 1'800'000, 3'600'000, 7'200'000};
inline constexpr std::int32_t kDelayLevelMax = 18;  // levels of the default table
// A configured table (messageDelayLevel) has 1..kDelayLevelsConfigurableMax levels.
inline constexpr std::int32_t kDelayLevelsConfigurableMax = 64;

static_assert(kDefaultDelayLevelsMs.size() == kDelayLevelMax);
static_assert(kDefaultDelayLevelsMs.back() == 2 * 3600 * 1000);

// The delay of `level` in the default table; nullopt outside 1..18.
constexpr std::optional<Duration> default_delay(std::int32_t level) {
  if (level < 1 || level > kDelayLevelMax) return std::nullopt;
  return std::chrono::milliseconds(kDefaultDelayLevelsMs[static_cast<std::size_t>(level - 1)]);
}

// The default table as delays (index 0 = level 1).
std::vector<Duration> default_delay_levels();

// Parses a space-separated table such as "1s 5s 1m 2h 1d" (units s, m, h, d; positive integer
// amounts) into delays in level order (index 0 = level 1). Errors (invalid_argument) quote the
// bad entry; an empty table or more than 64 levels is an error too.
Result<std::vector<Duration>> parse_delay_levels(std::string_view text);

}  // namespace ferry
