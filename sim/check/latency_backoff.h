// Checker "latency_backoff" (a named check: History::settings.named["latency_backoff"]): RocketMQ's
// sendLatencyFaultEnable judged from the sends alone, not from the producer's internal table.
//
// For each producer, every send that landed on the slow group `group` (its SEND_OK queue; for a
// send of unknown outcome, the queue it was consumed from) sets an avoidance window as
// MQFaultStrategy does: from the send's end, for notAvailableDuration[i] of the largest
// latencyMax[i] <= its latency (550 ms -> 30 s, 1000 ms -> 60 s, 2000 -> 120 s, 3000 -> 180 s,
// 15000 -> 600 s), a send that did not succeed counting as 30 s (-> 600 s); the last update wins.
//   - A producer with sendLatencyFaultEnable (History::latency_fault_producers) must send nothing
//     to the group inside a window (slack_ms off each edge), and must try the group again once a
//     window has ended (a violation when 20 sends went elsewhere after it and none to the group).
//   - A producer without it goes on with round robin: a window of 10 s or more in which it sent
//     10 times or more and never to the group (nor failed a send whose destination the history
//     cannot tell) is a violation (it avoided the group unasked).
// The other groups must stay fast for this to hold (RocketMQ falls back to the least bad broker
// when every one is isolated). Figures per producer: windows, longest_window_ms,
// sends_in_windows, to_group_in_windows, retry_after_window_ms (the largest delay).
#pragma once

#include "sim/check/registry.h"
#include "sim/check/verdict.h"
#include "sim/history/history.h"

namespace ferry::sim::check {

// The bounds: `group` answers slowly, then not at all.
struct LatencyBackoffBounds {
  std::string group;
  std::int64_t slack_ms = 1'000;
};

Verdict check_latency_backoff(const History& h, const LatencyBackoffBounds& bounds);

// RocketMQ's isolation for a latency (ms), 0 below 550 ms.
std::int64_t expected_isolation_ms(std::int64_t latency_ms);

// The registry's entry (registry.h): a named check, [checks.latency_backoff] in a scenario file.
CheckerSpec latency_backoff_checker();

}  // namespace ferry::sim::check
