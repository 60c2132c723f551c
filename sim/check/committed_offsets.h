// Checker (f): committed offsets ("committed-offsets"). History::commits holds, per broker node,
// group and queue, the offsets the broker's ConsumerOffsetManager held, recorded whenever one
// changed (sim/scenario/offset_observer.h). Each such stream must never go back unless the
// history explains it:
//  * a crash or restart of that broker node (an Event of kind crash or start naming it) between
//    the two records: it reloads the offsets it persisted, at most kBrokerPersistLoss before the
//    crash, so the new offset must be at least the one recorded kBrokerPersistLoss +
//    kObserverSlack before the crash (a power loss or a wiped disk may lose the file: any value);
//  * or an event of a member of the group (a consumer's start, crash, fault, heal, rebalance;
//    members are History::consumers and whoever consumed for the group), or a take of the queue
//    by a member (History::takes: a broker's restart can show one member a group without the
//    other, and both hold the queue for a round), or deliveries of the queue to two members
//    (they held it at once: each asked a different broker for the group's members, one of which
//    could not hear the other member, for as long as that lasts), from kGroupEventReach before
//    the previous record up to the new one: a queue that moves between consumers is
//    taken from the offset committed when it was taken, and the previous holder's last commit
//    may land after that (RocketMQ's at-least-once hand-over); a consumer may also reset, or
//    be told its offset is illegal (OFFSET_ILLEGAL: a slave promoted after an asynchronous
//    master died has a shorter queue than the old master served; the consumer commits the
//    broker's offset, RocketMQ's behaviour): sim/scenario/take_observer.h records that event.
//  * or that broker became its group's master between the two records (a controller's view of a
//    new master epoch naming it, or an operator's promote event): a slave's offsets are copies
//    of its master's, taken every kSlaveSyncInterval, so the new value must be at least what
//    the master it followed held kSlaveSyncInterval + kObserverSlack before the change
//    (controller-group-restart under swarm seed 9: 49 on broker-a-s2 as master of epoch 1, 48
//    when it became master of epoch 3, copied from broker-a-s1).
// Anything else is a violation; settings.offsets_monotonic false reports them without failing.
// Figures: commits, streams, backward_explained, backward_unexplained.
#pragma once

#include "runtime/time.h"
#include "sim/check/registry.h"
#include "sim/check/verdict.h"
#include "sim/history/history.h"

namespace ferry::sim::check {

// The broker's flush_consumer_offset_interval (consumerOffset.json written this often).
inline constexpr Duration kBrokerPersistInterval = std::chrono::seconds(5);
// What a crash may lose of the committed offsets: the last interval, and one more when a write
// runs late (a slow disk, a busy loop; buggify delays one by up to an interval). soak-hour under
// swarm seed 102: a kill at 600.2 s reloaded what broker-a held at 591.3 s.
inline constexpr Duration kBrokerPersistLoss = 2 * kBrokerPersistInterval;
// How late the observer may see a change (it looks every 250 ms), with room to spare.
inline constexpr Duration kObserverSlack = std::chrono::seconds(1);
// How far back a group's event still explains a step back: a rebalance round (20 s) and a
// consumer's offset persist (5 s), with room to spare.
inline constexpr Duration kGroupEventReach = std::chrono::seconds(30);
// A slave copies its master's consumer offsets this often (RocketMQ's SlaveSynchronize).
inline constexpr Duration kSlaveSyncInterval = std::chrono::seconds(10);

Verdict check_committed_offsets(const History& h);

// The registry's entry (registry.h): runs on every History.
CheckerSpec committed_offsets_checker();

}  // namespace ferry::sim::check
