// Checker "store-prefix": after any crash, a broker's CommitLog is a prefix of what it appended,
// containing every synced record (issue 16, property 6). It judges History::store_restarts, one
// record per restart of a broker node (master or slave) that the runner's StoreObserver saw
// (sim/scenario/store_observer.h). A restart is a violation when
//   - the recovered log differs from what was seen before at the same offsets (first_mismatch:
//     a record below where recovery ended is missing, has another size or other bytes), or
//   - a synced record was lost: recovery ended below the highest flushed offset seen before the
//     crash (recovered_end < before_synced).
// A restart whose disk was wiped (wiped) starts a new life with nothing to judge.
// Each violation names the broker node, the virtual time of the look that found it and the
// offsets. Figures: restarts (judged, wiped ones excluded), wiped, bytes_compared,
// records_compared, mismatches, synced_lost.
#pragma once

#include "sim/check/registry.h"
#include "sim/check/verdict.h"
#include "sim/history/history.h"

namespace ferry::sim::check {

Verdict check_store_prefix(const History& h);

// The registry's entry (registry.h): runs on every History.
CheckerSpec store_prefix_checker();

}  // namespace ferry::sim::check
