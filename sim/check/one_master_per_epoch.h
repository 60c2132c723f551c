// Checker "one-master-per-epoch" (runs on every History; judges only controller mode's records):
// no two brokers of one group acknowledge a write in the same masterEpoch, and the one that does
// is the master the controllers named for that epoch. From History::broker_epochs (each broker's
// SEND_OK counts by the masterEpoch its puts were stored in, per life) and
// History::controller_views (sim/scenario/controller_observer.h).
//   * Two brokers with SEND_OK counts under one (group, masterEpoch): a violation (the fencing
//     failed: an old master kept acknowledging after a new one was elected in its epoch, or a
//     broker acted on an epoch it was not master of).
//   * A broker acknowledging in an epoch for which some controller showed another master: a
//     violation. An epoch no view showed (it lasted less than the observer's look interval) is
//     counted as a figure only.
// Epoch 0 (outside controller mode, or before the first election) is not judged: there nothing
// fences an old master (docs/operations.md). Figures: epochs_with_acks, acks (messages), unseen_epochs.
#pragma once

#include "sim/check/registry.h"
#include "sim/check/verdict.h"
#include "sim/history/history.h"

namespace ferry::sim::check {

Verdict check_one_master_per_epoch(const History& h);

// The registry's entry (registry.h): runs on every History.
CheckerSpec one_master_per_epoch_checker();

}  // namespace ferry::sim::check
