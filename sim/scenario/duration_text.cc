#include "sim/scenario/duration_text.h"

#include <fmt/format.h>

#include <array>
#include <cstdint>

namespace ferry::sim::scenario {

namespace {

struct Unit {
  std::string_view name;
  Duration size;
};

// Longest names first, so that "ms" is not read as "m" followed by garbage.
constexpr std::array<Unit, 6> kUnits = {{
    {"ns", std::chrono::nanoseconds(1)},
    {"us", std::chrono::microseconds(1)},
    {"ms", std::chrono::milliseconds(1)},
    {"s", std::chrono::seconds(1)},
    {"m", std::chrono::minutes(1)},
    {"h", std::chrono::hours(1)},
}};

bool is_digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

Result<Duration> parse_duration(std::string_view text, bool sign_allowed) {
  const std::string quoted = fmt::format("\"{}\"", text);
  if (text.empty()) return Error(Errc::invalid_argument, "an empty duration: write 30s, 500ms or 2m");
  std::string_view rest = text;
  bool negative = false;
  if (rest.front() == '+' || rest.front() == '-') {
    if (!sign_allowed) return Error(Errc::invalid_argument, fmt::format("{}: a duration here cannot be signed", quoted));
    negative = rest.front() == '-';
    rest.remove_prefix(1);
  }
  Duration total{};
  std::size_t parts = 0;
  while (!rest.empty()) {
    if (++parts > kUnits.size()) return Error(Errc::invalid_argument, fmt::format("{}: too many parts", quoted));
    std::int64_t n = 0;
    std::size_t digits = 0;
    while (digits < rest.size() && is_digit(rest[digits])) {
      if (n > 1'000'000'000'000LL) return Error(Errc::invalid_argument, fmt::format("{}: number too large", quoted));
      n = n * 10 + (rest[digits] - '0');
      ++digits;
    }
    if (digits == 0) {
      return Error(Errc::invalid_argument,
                   fmt::format("{}: expected a number at \"{}\" (write 30s, 500ms, 2m or 1m30s)", quoted, rest));
    }
    rest.remove_prefix(digits);
    const Unit* unit = nullptr;
    for (const Unit& u : kUnits) {
      if (rest.substr(0, u.name.size()) == u.name && (unit == nullptr || u.name.size() > unit->name.size())) unit = &u;
    }
    if (unit == nullptr) {
      if (rest.empty() || rest.front() == '.') {
        return Error(Errc::invalid_argument,
                     fmt::format("{}: {} (write whole numbers with a unit: ns, us, ms, s, m, h)", quoted,
                                 rest.empty() ? "no unit" : "no fractions"));
      }
      return Error(Errc::invalid_argument, fmt::format("{}: unknown unit at \"{}\" (ns, us, ms, s, m, h)", quoted, rest));
    }
    rest.remove_prefix(unit->name.size());
    // n <= 1e12 and the largest unit is an hour: check against the bound before multiplying.
    if (n > to_ms(kDurationMax) * 1'000'000 / unit->size.count()) {
      return Error(Errc::invalid_argument, fmt::format("{}: longer than {}", quoted, format_duration(kDurationMax)));
    }
    total += unit->size * n;
    if (total > kDurationMax) {
      return Error(Errc::invalid_argument, fmt::format("{}: longer than {}", quoted, format_duration(kDurationMax)));
    }
  }
  return negative ? -total : total;
}

std::string format_duration(Duration d) {
  if (d == Duration{}) return "0s";
  std::string out = d < Duration{} ? "-" : "";
  Duration left = d < Duration{} ? -d : d;
  for (auto it = kUnits.rbegin(); it != kUnits.rend(); ++it) {
    const std::int64_t n = left / it->size;
    if (n == 0) continue;
    out += fmt::format("{}{}", n, it->name);
    left -= it->size * n;
  }
  return out;
}

std::string format_latency(Duration d) {
  if (d % std::chrono::seconds(1) == Duration::zero()) return format_duration(d);
  return fmt::format("{}ms", to_ms(d));
}

}  // namespace ferry::sim::scenario
