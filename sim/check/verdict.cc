#include "sim/check/verdict.h"

#include <fmt/format.h>

namespace ferry::sim::check {

void Verdict::violation(std::string text) {
  if (violations++ == 0) first_violation = std::move(text);
}

void Verdict::violation(std::string text, MonoTime at) {
  if (violations == 0) first_violation_at = at;
  violation(std::move(text));
}

std::string Verdict::to_line() const {
  if (!not_judged.empty()) return fmt::format("{}: NOT JUDGED ({})", name, not_judged);
  std::string line = fmt::format("{}: {}{}", name, passed ? "PASS" : "FAIL", figures_only ? " (figures only)" : "");
  for (const auto& [k, v] : figures) line += fmt::format(" {}={}", k, v);
  if (violations > 0) line += fmt::format(" violations={}; first: {}", violations, first_violation);
  return line;
}

}  // namespace ferry::sim::check
