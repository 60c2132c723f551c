// Checker: orderly exclusivity. An orderly consumer of a clustering group processes a queue only
// while it holds the queue's broker lock, so no two consumers of one group process messages of
// the same queue at the same time (RocketMQ's MessageListenerOrderly promise).
//
// What a delivery tells: an orderly clustering consumer records with each delivery when its lock
// of that queue was last confirmed by the broker (ConsumeRecord::lock_at). From that confirmation
// to the delivery, the consumer held the queue as its own: its holding interval is
// [lock_at, at]. Two deliveries of one (group, queue) by different consumers whose holding
// intervals overlap mean both processed the queue as its owner at once: a violation.
//
// Times are each consumer's own monotonic clock, which in swarm runs drifts from virtual time
// (sim::ClockOptions::drift_max_ppm, at most 500 ppm: 0.5 s over a 1000 s run); intervals must
// overlap by more than kOrderlyOverlapSlack to count. A queue handed over properly (the old owner
// drops it and unlocks, the new one locks, then consumes) leaves a gap, not an overlap; a broker
// granting a lock that another consumer still holds leaves an overlap as long as the old owner
// goes on consuming (seconds: until its next rebalance).
// Figures: orderly_deliveries (deliveries with a lock time), queues, overlaps.
#pragma once

#include "runtime/time.h"
#include "sim/check/registry.h"
#include "sim/check/verdict.h"
#include "sim/history/history.h"

namespace ferry::sim::check {

inline constexpr Duration kOrderlyOverlapSlack = std::chrono::milliseconds(500);

Verdict check_orderly_exclusive(const History& h);

// The registry's entry (registry.h): runs on every History.
CheckerSpec orderly_exclusive_checker();

}  // namespace ferry::sim::check
