// Checker (a): acknowledged messages lost. Every send acknowledged with SEND_OK must be consumed,
// intact, by every clustering group that consumes its topic (a group consumes a topic it
// subscribed to, History::subscriptions, or that the history shows it consumed something of),
// and by every broadcast consumer (History::consumers) that stayed to the end: each of those must
// have received every acknowledged send of its topic that was sent after its first start and
// either stored at or after where it started reading that queue or sent after it took the queue
// (QueueStart below; a consumer starting at the last offset skips what came before). Strict (settings.lost_strict:
// SYNC_FLUSH + SYNC_MASTER) fails on any loss; tolerant passes and reports the loss as the
// figure `lost` (async modes). A send cleanup removed from its queue before the audience consumed
// it (History::queue_floors: retention, or a disk past its limits deleting at once) is expired,
// not lost: RocketMQ keeps messages only that long (the figure `expired`, clustering groups).
// Figures: acked, lost, expired, groups, broadcast_consumers. A violation names producer#seq, where it was
// stored and the group (or the broadcast consumer).
#pragma once

#include "sim/check/registry.h"
#include "sim/check/verdict.h"
#include "sim/history/history.h"
#include "sim/history/owed.h"

namespace ferry::sim::check {

Verdict check_lost_acked(const History& h);

// The registry's entry (registry.h): runs on every History.
CheckerSpec lost_acked_checker();

}  // namespace ferry::sim::check
