// Checker "timer_delivery" (a named check: History::settings.named["timer_delivery"]): timer
// messages (RocketMQ 5; docs/store.md "Timer messages") arrive when they asked to, not before,
// and not much after. For each acknowledged send with a timer delay (SendRecord::timer_delay)
// that some consumer received, its first consumption (any group) is judged:
//   - early: before its send began plus its delay. The broker stores the due time rounded down
//     and fires at the end of that slot, so even a timer stored the moment its send began arrives
//     no earlier than that. Allowed: the clocks' disagreement (each node's clock drifts up to
//     500 ppm from virtual time; 1 ms of rounding), `early_slack` (a scenario whose failover hands
//     timers to a broker whose wall clock runs ahead of the one that stored them), and a timer
//     consumed after a broker restarted with a wall clock that had jumped (a restart reads the
//     wall clock again: the pending timers move with it, as docs/store.md says).
//   - late: after its send was acknowledged plus its delay plus `precision` plus `late_max`,
//     unless an Event (a crash, restart, fault, heal, promotion or rebalance anywhere) lies
//     between its send (less `aftermath`) and that consumption: then it is counted as excused,
//     not failed. `aftermath` covers what a fault leaves behind it: a consumer's route of a
//     restarted broker may lack it until the next route poll (30 s), so a timer stored there just
//     after the restart waits as long.
// A timer never consumed is lost-acked's business; sends without a timer are not judged.
// Figures: timers (acknowledged timer sends), judged, early, late, late_excused,
// lateness_p50_ms, lateness_p99_ms, lateness_max_ms (first consumption − (send + delay)), and
// delay_max_ms.
#pragma once

#include "sim/check/registry.h"
#include "sim/check/verdict.h"
#include "sim/history/history.h"

namespace ferry::sim::check {

struct TimerDeliveryBounds {
  Duration late_max = std::chrono::seconds(2);
  Duration precision = std::chrono::seconds(1);
  Duration early_slack{};
  Duration aftermath{};
};

Verdict check_timer_delivery(const History& h, const TimerDeliveryBounds& b);

// The registry's entry (registry.h): a named check.
CheckerSpec timer_delivery_checker();

}  // namespace ferry::sim::check
