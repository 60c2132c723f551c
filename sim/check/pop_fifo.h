// Checker "pop-fifo": FIFO POP (RocketMQ 5's orderly POP, `order=true`; docs/broker.md "POP
// consumption") hands out one batch of a queue at a time per group, from the first message the
// group has not acknowledged, in queue order. Judged on the POP deliveries of the groups whose
// consumers receive in order (ConsumerInfo::kind "pop-fifo"), per group and queue, with a batch
// being the messages of one POP reply (one consumer's POP sent at PopDelivery::requested_at) and
// "before" meaning certainly before: A's reply came before B's POP went out (less clock_margin).
// A batch B of a queue fails when
//   - skipped: an offset below B's first, not in B, that the group was handed before B and had
//     not acknowledged (no ack sent, less clock_margin) by the time B arrived, or that it was handed only after B
//     (B went past a message never handed out) — unless a controller or an operator made another
//     master of the queue's broker group in between (the new master's offsets are its own);
//   - overlapped: it came while a message of an earlier batch of the queue was unacknowledged
//     (no ack sent before B arrived) and still invisible (its POP went out more than its
//     invisible time, less clock_margin, after B arrived) — unless the broker group restarted,
//     failed over or had its clock skewed in between (the batch state is in memory; visibility
//     is by the broker's wall clock).
// When a message may come back at all (invisible time over, not acknowledged) is pop-delivery's;
// the order of first deliveries per key is key-order's.
// Figures: fifo_groups, batches (per queue), skipped, overlapped, excused.
#pragma once

#include "sim/check/registry.h"
#include "sim/check/verdict.h"
#include "sim/history/history.h"

namespace ferry::sim::check {

Verdict check_pop_fifo(const History& h);

// The registry's entry (registry.h): run on every History.
CheckerSpec pop_fifo_checker();

}  // namespace ferry::sim::check
