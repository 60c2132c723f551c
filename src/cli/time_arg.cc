#include "cli/time_arg.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <ctime>
#include <optional>

namespace ferry::cli {

namespace {

constexpr std::string_view kForms =
    "milliseconds since the epoch, 'now', ISO 8601 (2026-01-01T08:30:00[.123][Z|+08:00], local time without a zone) "
    "or yyyy-MM-dd#HH:mm:ss:SSS";

// Reads exactly `digits` decimal digits at `pos`.
bool read_fixed(const std::string& s, std::size_t& pos, std::size_t digits, int& out) {
  if (pos + digits > s.size()) return false;
  int v = 0;
  for (std::size_t i = 0; i < digits; ++i) {
    const char c = s[pos + i];
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    v = v * 10 + (c - '0');
  }
  pos += digits;
  out = v;
  return true;
}

bool expect(const std::string& s, std::size_t& pos, char c) {
  if (pos >= s.size() || s[pos] != c) return false;
  ++pos;
  return true;
}

// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

std::optional<std::int64_t> parse_date_time(const std::string& s) {
  std::size_t pos = 0;
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, millis = 0;
  if (!read_fixed(s, pos, 4, year) || !expect(s, pos, '-') || !read_fixed(s, pos, 2, month) || !expect(s, pos, '-') ||
      !read_fixed(s, pos, 2, day)) {
    return std::nullopt;
  }
  if (pos >= s.size()) return std::nullopt;
  const char sep = s[pos++];
  const bool rocketmq = sep == '#';
  if (sep != 'T' && sep != ' ' && !rocketmq) return std::nullopt;
  if (!read_fixed(s, pos, 2, hour) || !expect(s, pos, ':') || !read_fixed(s, pos, 2, minute) || !expect(s, pos, ':') ||
      !read_fixed(s, pos, 2, second)) {
    return std::nullopt;
  }
  if (rocketmq) {
    if (!expect(s, pos, ':') || !read_fixed(s, pos, 3, millis)) return std::nullopt;
  } else if (pos < s.size() && s[pos] == '.') {
    ++pos;
    if (!read_fixed(s, pos, 3, millis)) return std::nullopt;
  }
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) return std::nullopt;
  std::optional<std::int64_t> offset_minutes;  // nullopt: local time
  if (!rocketmq && pos < s.size()) {
    if (s[pos] == 'Z' || s[pos] == 'z') {
      ++pos;
      offset_minutes = 0;
    } else if (s[pos] == '+' || s[pos] == '-') {
      const int sign = s[pos] == '-' ? -1 : 1;
      ++pos;
      int oh = 0, om = 0;
      if (!read_fixed(s, pos, 2, oh)) return std::nullopt;
      if (pos < s.size() && s[pos] == ':') ++pos;
      if (!read_fixed(s, pos, 2, om) || oh > 23 || om > 59) return std::nullopt;
      offset_minutes = sign * (oh * 60 + om);
    }
  }
  if (pos != s.size()) return std::nullopt;
  if (offset_minutes) {
    const std::int64_t days = days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
    const std::int64_t secs = days * 86400 + hour * 3600 + minute * 60 + second - *offset_minutes * 60;
    return secs * 1000 + millis;
  }
  std::tm tm{};
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  tm.tm_isdst = -1;  // let the C library decide (daylight saving time)
  const std::time_t t = std::mktime(&tm);
  if (t == static_cast<std::time_t>(-1)) return std::nullopt;
  return static_cast<std::int64_t>(t) * 1000 + millis;
}

}  // namespace

Result<std::int64_t> parse_time_arg(const std::string& text, std::int64_t now_ms) {
  if (text == "now") return now_ms;
  if (!text.empty() && text.find_first_not_of("0123456789") == std::string::npos) {
    std::int64_t ms = 0;
    auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), ms);
    if (ec == std::errc() && p == text.data() + text.size()) return ms;
  }
  if (std::optional<std::int64_t> ms = parse_date_time(text)) return *ms;
  return Error(Errc::invalid_argument, fmt::format("'{}' is not a point in time: give {}", text, kForms));
}

std::string format_utc_ms(std::int64_t ms) {
  const std::int64_t secs = ms >= 0 ? ms / 1000 : (ms - 999) / 1000;
  const std::int64_t millis = ms - secs * 1000;
  const std::time_t t = static_cast<std::time_t>(secs);
  std::tm tm{};
  if (::gmtime_r(&t, &tm) == nullptr) return std::to_string(ms);
  return fmt::format("{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                     tm.tm_min, tm.tm_sec, millis);
}

}  // namespace ferry::cli
