// Checker (e): per-queue consumed offsets. For each group (each consumer of a broadcast group) and queue, in the order the listeners
// saw them, a delivered offset never goes back (or repeats) unless the step is explained: the
// queue moved to another consumer of the group (a rebalance, seen in the history), or an event
// (crash, start, fault, heal, rebalance: History::events) lies between the queue's previous
// delivery and this one. A push consumer's concurrent listener consumes a batch on several
// threads, in any order (RocketMQ's consumeThreadMin; real runs show it, the simulator's inline
// listener does not): for such a consumer only an offset delivered again counts as a step back.
// With settings.offsets_dense, a queue's delivered offsets must also
// cover every offset between the lowest and the highest (no tag filtering, nothing expired).
// Figures: queues, backward_explained, backward_unexplained, holes.
#pragma once

#include "sim/check/registry.h"
#include "sim/check/verdict.h"
#include "sim/history/history.h"

namespace ferry::sim::check {

Verdict check_queue_offsets(const History& h);

// The registry's entry (registry.h): runs on every History.
CheckerSpec queue_offsets_checker();

}  // namespace ferry::sim::check
