// Checker (a): acknowledged messages lost. Every send acknowledged with SEND_OK must be consumed,
// intact, by every group that consumes its topic (a group consumes a topic when the history shows
// it consumed something of it). Strict (settings.lost_strict: SYNC_FLUSH + SYNC_MASTER) fails on
// any loss; tolerant passes and reports the loss as the figure `lost` (async modes).
// Figures: acked, lost, groups. A violation names producer#seq, where it was stored and the group.
#pragma once

#include "sim/check/history.h"
#include "sim/check/verdict.h"

namespace ferry::sim::check {

Verdict check_lost_acked(const History& h);

}  // namespace ferry::sim::check
