// Durations as scenario files write them: an integer and a unit, optionally several in a row
// ("30s", "500ms", "2m", "1m30s", "1h"). Units: ns, us, ms, s, m, h. A sign ("+3s", "-250ms") is
// accepted only where the caller allows one (a clock skew).
#pragma once

#include <string>
#include <string_view>

#include "runtime/result.h"
#include "runtime/time.h"

namespace ferry::sim::scenario {

// The longest duration a scenario may name (a week of virtual time); longer is refused.
inline constexpr Duration kDurationMax = std::chrono::hours(24 * 7);

// Errors (invalid_argument) say what is wrong with the text ("\"5\" has no unit: write 5s or
// 5ms"); the caller adds file, line and key.
Result<Duration> parse_duration(std::string_view text, bool sign_allowed = false);

// The shortest exact text for `d` ("1m30s", "500ms", "0s"; "-3s" when negative).
std::string format_duration(Duration d);

// A latency as people read it: whole seconds as format_duration writes them ("2s"), anything
// else in milliseconds ("600ms", "1100ms").
std::string format_latency(Duration d);

}  // namespace ferry::sim::scenario
