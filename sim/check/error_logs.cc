#include "sim/check/error_logs.h"

#include <fmt/format.h>

#include <algorithm>

namespace ferry::sim::check {

namespace {

bool expected(const std::vector<std::string>& substrings, const std::string& text) {
  return std::any_of(substrings.begin(), substrings.end(),
                     [&](const std::string& s) { return !s.empty() && text.find(s) != std::string::npos; });
}

}  // namespace

Verdict check_error_logs(const History& h) {
  Verdict v;
  v.name = "error-logs";
  std::int64_t matched = 0, unexpected = 0;
  for (const LogLine& line : h.error_logs) {
    if (expected(h.settings.expected_errors, line.text)) {
      ++matched;
      continue;
    }
    ++unexpected;
    v.violation(fmt::format("{} logged at {} ms ({}), not in expected_errors: {}", line.node, ms_of(line.at), line.level, line.text),
                line.at);
  }
  v.figures["error_lines"] = static_cast<std::int64_t>(h.error_logs.size()) + h.error_logs_not_kept;
  v.figures["expected"] = matched;
  v.figures["unexpected"] = unexpected;
  if (h.error_logs_not_kept > 0) v.figures["not_kept"] = h.error_logs_not_kept;
  v.passed = unexpected == 0;
  return v;
}

CheckerSpec error_logs_checker() {
  return CheckerSpec{"error-logs", "no node logged an error the scenario did not expect", true, {}, Records(Record::error_logs),
                     [](const History& h, const OptionValues&) { return check_error_logs(h); }};
}

}  // namespace ferry::sim::check
