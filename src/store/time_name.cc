#include "store/time_name.h"

#include <fmt/format.h>

#include "runtime/assert.h"

namespace ferry::store {

namespace {

constexpr std::int64_t kMsPerDay = 86'400'000;

// Howard Hinnant's days_from_civil / civil_from_days (proleptic Gregorian, public domain
// algorithms), on plain integers.
std::int64_t days_from_civil(std::int64_t y, std::int64_t m, std::int64_t d) {
  y -= m <= 2 ? 1 : 0;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const std::int64_t yoe = y - era * 400;
  const std::int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

struct Civil {
  std::int64_t y, m, d;
};

Civil civil_from_days(std::int64_t z) {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const std::int64_t doe = z - era * 146097;
  const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const std::int64_t mp = (5 * doy + 2) / 153;
  const std::int64_t d = doy - (153 * mp + 2) / 5 + 1;
  const std::int64_t m = mp + (mp < 10 ? 3 : -9);
  return {yoe + era * 400 + (m <= 2 ? 1 : 0), m, d};
}

}  // namespace

std::string time_file_name(WallMs ms) {
  FERRY_ASSERT(ms >= 0, "time file name of negative wall time {}", ms);
  const std::int64_t days = ms / kMsPerDay;
  std::int64_t rest = ms % kMsPerDay;
  const Civil c = civil_from_days(days);
  FERRY_ASSERT(c.y < 10000, "wall time {} is past year 9999", ms);
  const std::int64_t hour = rest / 3'600'000;
  rest %= 3'600'000;
  const std::int64_t minute = rest / 60'000;
  rest %= 60'000;
  std::string name = fmt::format("{:04d}{:02d}{:02d}{:02d}{:02d}{:02d}{:03d}", c.y, c.m, c.d, hour,
                                 minute, rest / 1000, rest % 1000);
  FERRY_ASSERT_EQ(name.size(), kTimeNameDigits);
  return name;
}

std::optional<WallMs> parse_time_file_name(std::string_view name) {
  if (name.size() != kTimeNameDigits) return std::nullopt;
  for (const char ch : name) {
    if (ch < '0' || ch > '9') return std::nullopt;
  }
  auto num = [&](std::size_t pos, std::size_t len) {
    std::int64_t v = 0;
    for (std::size_t i = pos; i < pos + len; ++i) v = v * 10 + (name[i] - '0');
    return v;
  };
  const std::int64_t y = num(0, 4), mo = num(4, 2), d = num(6, 2), h = num(8, 2),
                     mi = num(10, 2), s = num(12, 2), ms = num(14, 3);
  if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s > 59) return std::nullopt;
  const std::int64_t days = days_from_civil(y, mo, d);
  if (civil_from_days(days).d != d) return std::nullopt;  // e.g. February 30th
  if (days < 0) return std::nullopt;
  return days * kMsPerDay + h * 3'600'000 + mi * 60'000 + s * 1000 + ms;
}

}  // namespace ferry::store
