// The fault windows shaded across the timeline, from one of two sources:
//
//   add_schedule_windows  a scenario's fault schedule (x = its `at`, since the workload's start):
//                         an entry that lasts (kill, power_off, silence, pause, partition,
//                         partition_one_way, isolate, clog, fill_disk, slow_disk, lying_disk,
//                         restart with a downtime)
//                         from `at` to `at + duration`; without a duration until the first later
//                         entry that ends it (heal_all; heal, resume or restart naming one of its
//                         targets) or else the end of the fault phase (run.length: the liveness
//                         phase heals everything). Instant actions (heal, heal_all, resume,
//                         skew_clock, wipe_disk, promote_slave, restart without downtime) make no
//                         window: their History events mark the lanes.
//   add_event_windows     a History alone (mqsim check): each fault or crash event (those of one
//                         step share a time and a detail) up to the first later heal (of a fault)
//                         or start (of a crash) of one of its nodes. One without such an end makes
//                         no window: a history does not say how long it lasted (its marks remain).
#pragma once

#include "runtime/time.h"
#include "sim/history/history.h"
#include "sim/report/timeline.h"
#include "sim/scenario/scenario.h"

namespace ferry::sim::report {

void add_schedule_windows(Timeline& t, const scenario::Scenario& s);
void add_event_windows(Timeline& t, const sim::History& h, MonoTime origin);

}  // namespace ferry::sim::report
