// The nodes' log lines around a failed seed's first violation, as `mqsim run` prints them: every
// line the run kept (sim/scenario/recent_logs.h: info and above, whatever --log-level printed)
// from kLogWindowBefore before the violation's virtual time to kLogWindowAfter after it, at most
// kLogWindowLinesMax (the nearest to the violation), with a marker where the violation falls and
// a note of what was left out. docs/scenarios.md shows an example.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "runtime/time.h"
#include "sim/scenario/recent_logs.h"
#include "sim/scenario/runner.h"

namespace ferry::mqsim {

inline constexpr Duration kLogWindowBefore = std::chrono::seconds(2);
inline constexpr Duration kLogWindowAfter = std::chrono::seconds(1);
inline constexpr std::size_t kLogWindowLinesMax = 60;

// The first violation's time of the first failed checker, when it timed it (none when the run
// could not be carried out, or every checker passed: a liveness failure alone has no time).
std::optional<MonoTime> first_violation_time(const sim::scenario::RunOutcome& run);

// The block to print: a heading line, then one indented line per log line
// ("    [12.345678s] [broker-a] [warn] text"), each line ending in '\n'.
std::string format_log_window(const sim::scenario::RecentLogs& logs, MonoTime at);

}  // namespace ferry::mqsim
