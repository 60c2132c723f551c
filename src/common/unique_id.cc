#include "common/unique_id.h"

#include "common/byte_writer.h"
#include "common/hex.h"
#include "runtime/assert.h"

namespace ferry {
namespace {

constexpr std::int64_t kMsPerDay = 86'400'000;

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q;
}

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2 ? 1 : 0;
  const std::int64_t era = floor_div(y, 400);
  const auto yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

struct YearMonth {
  std::int64_t year;
  unsigned month;  // 1..12
};

YearMonth civil_from_days(std::int64_t z) {
  z += 719468;
  const std::int64_t era = floor_div(z, 146097);
  const auto doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  const unsigned m = mp < 10 ? mp + 3 : mp - 9;
  const std::int64_t y = static_cast<std::int64_t>(yoe) + era * 400 + (m <= 2 ? 1 : 0);
  return {y, m};
}

}  // namespace

WallMs month_start_ms(WallMs ms) {
  YearMonth ym = civil_from_days(floor_div(ms, kMsPerDay));
  return days_from_civil(ym.year, ym.month, 1) * kMsPerDay;
}

WallMs next_month_start_ms(WallMs ms) {
  YearMonth ym = civil_from_days(floor_div(ms, kMsPerDay));
  if (ym.month == 12) return days_from_civil(ym.year + 1, 1, 1) * kMsPerDay;
  return days_from_civil(ym.year, ym.month + 1, 1) * kMsPerDay;
}

UniqIdGenerator::UniqIdGenerator(std::array<std::uint8_t, 4> ip, std::int32_t pid,
                                 std::int32_t process_hash) {
  SpanWriter w(fixed_);
  w.bytes(ip);
  w.u16(static_cast<std::uint16_t>(pid));
  w.i32(process_hash);
  FERRY_ASSERT_EQ(w.remaining(), 0u);
}

std::string UniqIdGenerator::next(WallMs now_ms) {
  if (next_month_start_ms_ == 0 || now_ms >= next_month_start_ms_ || now_ms < month_start_ms_) {
    month_start_ms_ = month_start_ms(now_ms);
    next_month_start_ms_ = next_month_start_ms(now_ms);
  }
  FERRY_ASSERT(month_start_ms_ <= now_ms && now_ms < next_month_start_ms_,
               "month [{}, {}) does not hold {}", month_start_ms_, next_month_start_ms_, now_ms);
  std::array<std::uint8_t, 6> tail{};
  SpanWriter w(tail);
  w.u32(static_cast<std::uint32_t>(now_ms - month_start_ms_));
  w.u16(counter_++);
  std::string id;
  id.reserve(kUniqIdChars);
  append_hex(id, fixed_);
  append_hex(id, tail);
  FERRY_ASSERT_EQ(id.size(), kUniqIdChars);
  return id;
}

Result<UniqIdParts> parse_uniq_id(std::string_view id) {
  std::array<std::uint8_t, 16> b{};
  FERRY_TRY(parse_hex(id, b));
  UniqIdParts p;
  for (std::size_t i = 0; i < 4; ++i) p.ip[i] = b[i];
  p.pid = load_be16(b.data() + 4);
  p.process_hash = static_cast<std::int32_t>(load_be32(b.data() + 6));
  p.ms_since_month_start = load_be32(b.data() + 10);
  p.counter = load_be16(b.data() + 14);
  return p;
}

}  // namespace ferry
