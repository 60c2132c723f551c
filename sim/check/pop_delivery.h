// Checker "pop-delivery": POP consumption (RocketMQ 5; docs/broker.md "POP consumption") hands a
// message out, keeps it invisible for the time the POP asked for, and hands it out again only if
// it was not acknowledged within that time. Judged on the deliveries of POP consumers
// (ConsumeRecord::pop) and their acknowledgements (History::pop_acks), per group and message
// (producer and sequence, from the body), in the order the broker handed them out (pop_order,
// history.h: the consumers' times when they tell, else the broker's time of each POP; a reply
// may arrive long after):
//   - a redelivery (a delivery from the POP retry topic, or of a queue offset the group was
//     handed before) must be explained by an earlier delivery of the message (the one a reconsume
//     lower first) whose invisible time was over when it arrived (less clock_margin: two
//     consumers' clocks) and whose ack was not answered within it; else it is
//       early: an earlier unacknowledged delivery was still invisible, or
//       after_ack: every earlier delivery was acknowledged in time or explains another,
//     unless the message's broker (a node of its group) crashed, restarted or was promoted, its
//     clock was skewed (up to kSkewTakesEffectWithin before: a real daemon's clock jumps late), or a controller named another master of its group (the new one serves the
//     offsets SlaveSync copied last), since the message was sent (and before the latest of the
//     deliveries compared: the broker's clock orders them, and one that jumped back, or another
//     master's, may order a later delivery first) (a restart replays the revive
//     log: a checkpoint whose revive or ack was not stored yet revives again, a popped offset not
//     persisted is handed out again, and a delivery whose reply the crash lost was never seen;
//     counted as explained);
//   - a delivery nobody tried to acknowledge must come back (when its invisible time ended at
//     least kComeBackSlack before the history's last record, its group still has a member and it
//     was handed out with fewer than kRetryMaxTimes reconsumes): else it is `never_back`, failing
//     only when lost messages fail the run (CheckSettings::lost_strict), and excused when a node
//     of its broker logged an error since (a failed disk refuses the revive's writes until a
//     restart and may have lost the checkpoint).
// Deliveries of a message stored twice (a send retried) count as two messages' first deliveries.
// Figures: pop_deliveries, redeliveries, came_back, explained, early, after_ack, acks, acks_in_time,
// unacked_judged, never_back, never_back_excused.
#pragma once

#include "sim/check/registry.h"
#include "sim/check/verdict.h"
#include "sim/history/history.h"

namespace ferry::sim::check {

// How long after its invisible time a message left unacknowledged may take to come back: the
// broker revives every reviveInterval (1 s) and a re-put may be retried.
inline constexpr Duration kComeBackSlack = std::chrono::seconds(30);
// A message handed out with this many reconsumes goes to the DLQ instead (the group's retryMaxTimes).
inline constexpr std::int32_t kRetryMaxTimes = kPopRetryMaxTimes;

Verdict check_pop_delivery(const History& h);

// The registry's entry (registry.h): run on every History.
CheckerSpec pop_delivery_checker();

}  // namespace ferry::sim::check
