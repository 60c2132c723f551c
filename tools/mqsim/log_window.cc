#include "tools/mqsim/log_window.h"

#include <fmt/format.h>

namespace ferry::mqsim {

namespace {

// "12.345678s", as the node loggers print virtual time.
std::string seconds(MonoTime t) {
  const std::int64_t ns = to_ns(t);
  return fmt::format("{}.{:06}s", ns / 1'000'000'000, (ns % 1'000'000'000) / 1000);
}

}  // namespace

std::optional<MonoTime> first_violation_time(const sim::scenario::RunOutcome& run) {
  if (run.error) return std::nullopt;
  for (const sim::check::Verdict& v : run.verdicts) {
    if (!v.passed) return v.first_violation_at;
  }
  return std::nullopt;
}

std::string format_log_window(const sim::scenario::RecentLogs& logs, MonoTime at) {
  const sim::scenario::RecentLogs::Window w = logs.around(at, kLogWindowBefore, kLogWindowAfter, kLogWindowLinesMax);
  std::string out = fmt::format("  node logs from {} to {} (the first violation at {}): {} line{}", seconds(at - kLogWindowBefore),
                                seconds(at + kLogWindowAfter), seconds(at), w.lines.size(), w.lines.size() == 1 ? "" : "s");
  if (w.left_out > 0) out += fmt::format(", {} more left out (the {} nearest shown)", w.left_out, kLogWindowLinesMax);
  out += "\n";
  if (w.may_miss_earlier) {
    out += fmt::format("    (the run logged more than the {} lines kept: lines before {} are gone)\n", logs.capacity(),
                       seconds(logs.at(0).at));
  }
  bool marked = false;
  for (const sim::LogLine& line : w.lines) {
    if (!marked && line.at > at) {
      out += fmt::format("    ---- {} the first violation ----\n", seconds(at));
      marked = true;
    }
    out += fmt::format("    [{}] [{}] [{}] {}\n", seconds(line.at), line.node, line.level, line.text);
  }
  if (!marked && !w.lines.empty()) out += fmt::format("    ---- {} the first violation ----\n", seconds(at));
  return out;
}

}  // namespace ferry::mqsim
