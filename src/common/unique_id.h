// The client-side unique message id (property UNIQ_KEY), as RocketMQ's MessageClientIDSetter
// makes it: 32 uppercase hex characters of 16 bytes, big-endian:
//   ip (4) | pid (low 2 bytes) | per-process hash (4) | ms since the start of the month (4) |
//   counter (2, wrapping)
//
// Component code never reads the time or the pid itself: the owner passes them in from its
// Runtime (ip and pid-like id and hash at construction, wall time on every call).
//
// "Start of the month" is computed in UTC (Java uses the JVM's local time zone; ids are only
// compared for equality, and the time part is informational, so the zone does not matter for
// compatibility).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "runtime/result.h"
#include "runtime/time.h"

namespace ferry {

inline constexpr std::size_t kUniqIdChars = 32;

// Midnight UTC of the first day of the month that holds `ms`, and of the next month.
WallMs month_start_ms(WallMs ms);
WallMs next_month_start_ms(WallMs ms);

class UniqIdGenerator {
 public:
  // pid: only the low 16 bits are used. process_hash: any value that differs between processes
  // on one host (Java uses its class loader's identity hash).
  UniqIdGenerator(std::array<std::uint8_t, 4> ip, std::int32_t pid, std::int32_t process_hash);

  // The next id. Ids differ for 65536 calls within one millisecond; the counter then wraps.
  // If `now_ms` leaves the current month (either way), the month is recomputed from it.
  std::string next(WallMs now_ms);

 private:
  std::array<std::uint8_t, 10> fixed_{};  // ip | pid | process hash
  WallMs month_start_ms_ = 0;
  WallMs next_month_start_ms_ = 0;  // 0 until the first call
  std::uint16_t counter_ = 0;
};

struct UniqIdParts {
  std::array<std::uint8_t, 4> ip{};
  std::uint16_t pid = 0;
  std::int32_t process_hash = 0;
  std::uint32_t ms_since_month_start = 0;  // up to 31 days: may exceed INT32_MAX (Java wraps)
  std::uint16_t counter = 0;
  auto operator<=>(const UniqIdParts&) const = default;
};

// Errors (invalid_argument): not 32 hex characters.
Result<UniqIdParts> parse_uniq_id(std::string_view id);

}  // namespace ferry
