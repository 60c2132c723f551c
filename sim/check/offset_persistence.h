// Checker "offset_persistence" (a named check: History::settings.named["offset_persistence"]): a
// consumer group's redeliveries stay within what it consumed in the last persist interval before
// the crash or rebalance that caused them.
//
// A redelivery is a consumption of a message (producer#seq) a group had consumed before, from the
// same queue and offset (another stored copy, from a send retried after an unknown outcome, is
// counted as stored_twice: the duplicates checker judges those). Its
// first delivery (at t1, by consumer c1, from a queue of broker group q) is explained when
//   - c1 crashed (a crash Event targeting it) at t with t1 <= t <= the redelivery, and
//     t1 >= t - persist_interval - slack: the consumer had not yet persisted that offset
//     (persistConsumerOffsetInterval);
//   - the master of q crashed at t with t1 <= t and t1 >= t - 2 * persist_interval - slack: the
//     broker flushes its offset table every persist interval (flushConsumerOffsetInterval) and a
//     consumer's last commit before that may be one interval old;
//   - the queue moved: the redelivering consumer is not c1, and t1 >= (when it began to consume
//     that queue) - persist_interval - slack; or c1 recorded a rebalance of the queue (it took
//     it again) at t with t1 >= t - persist_interval - slack;
//   - it is a retry (reconsume_times > 0).
// Anything else is a violation (a redelivery the persist interval does not account for).
// Figures: consumed, redelivered, stored_twice, explained_consumer_crash, explained_broker_crash,
// explained_rebalance, explained_retry, unexplained, crashes (of consumers and masters),
// oldest_redelivered_ms (the largest gap from a first delivery to the event that explained it).
#pragma once

#include "sim/check/registry.h"
#include "sim/check/verdict.h"
#include "sim/history/history.h"

namespace ferry::sim::check {

// The bounds of redeliveries after crashes and rebalances.
struct OffsetPersistenceBounds {
  std::int64_t persist_interval_ms = 5'000;
  std::int64_t slack_ms = 1'000;
};

Verdict check_offset_persistence(const History& h, const OffsetPersistenceBounds& bounds);

// The registry's entry (registry.h): a named check, [checks.offset_persistence] in a scenario file.
CheckerSpec offset_persistence_checker();

}  // namespace ferry::sim::check
