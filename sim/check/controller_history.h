// Checker "controller-history" (runs on every History; judges only controller mode's records):
// the controllers' decisions form one history, and epochs only grow. From
// History::controller_views (what each running controller's replicated state said of each broker
// group, sim/scenario/controller_observer.h) and History::broker_epochs:
//   * one history: every controller that applied a group's (masterEpoch, syncStateSetEpoch) saw
//     the same master and SyncStateSet there, and one masterEpoch names one master, whichever
//     controller is asked (the Raft log's state machine agrees on every replica);
//   * epochs only grow: within one life of a controller (its crash and restart start a new
//     life: it replays its log from the start), a group's masterEpoch and syncStateSetEpoch
//     never go back;
//   * no epoch from nowhere: no broker's epoch file holds a masterEpoch above every one the
//     controllers ever showed for its group.
// Violations name the group, the controllers and the epochs. Figures: views, controllers,
// elections (distinct masterEpochs with a master, summed over groups), max_master_epoch.
#pragma once

#include "sim/check/registry.h"
#include "sim/check/verdict.h"
#include "sim/history/history.h"

namespace ferry::sim::check {

Verdict check_controller_history(const History& h);

// The registry's entry (registry.h): runs on every History.
CheckerSpec controller_history_checker();

}  // namespace ferry::sim::check
