#include "common/delay_levels.h"

#include <fmt/format.h>

#include <charconv>

namespace ferry {

std::vector<Duration> default_delay_levels() {
  std::vector<Duration> out;
  for (std::int64_t ms : kDefaultDelayLevelsMs) out.push_back(std::chrono::milliseconds(ms));
  return out;
}

Result<std::vector<Duration>> parse_delay_levels(std::string_view text) {
  constexpr auto kLevelsMax = static_cast<std::size_t>(kDelayLevelsConfigurableMax);
  std::vector<Duration> out;
  while (!text.empty()) {
    std::size_t sp = text.find(' ');
    std::string_view item = text.substr(0, sp);
    text = (sp == std::string_view::npos) ? std::string_view{} : text.substr(sp + 1);
    if (item.empty()) continue;
    if (out.size() == kLevelsMax) {
      return Error(Errc::invalid_argument, fmt::format("more than {} delay levels", kLevelsMax));
    }
    std::int64_t amount = 0;
    auto [p, ec] = std::from_chars(item.data(), item.data() + item.size() - 1, amount);
    if (item.size() < 2 || ec != std::errc() || p != item.data() + item.size() - 1 ||
        amount <= 0 || amount > 1'000'000) {
      return Error(Errc::invalid_argument, fmt::format("bad delay level '{}'", item));
    }
    Duration unit{};
    switch (item.back()) {
      case 's': unit = std::chrono::seconds(1); break;
      case 'm': unit = std::chrono::minutes(1); break;
      case 'h': unit = std::chrono::hours(1); break;
      case 'd': unit = std::chrono::hours(24); break;
      default:
        return Error(Errc::invalid_argument, fmt::format("bad delay level unit in '{}'", item));
    }
    out.push_back(unit * amount);
  }
  if (out.empty()) return Error(Errc::invalid_argument, "empty delay level table");
  return out;
}

}  // namespace ferry
