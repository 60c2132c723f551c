// Checker "route_staleness" (a named check: History::settings.named["route_staleness"]), RocketMQ's
// routing delays measured from the runner's route observations (History::routes,
// History::registrations; sim/scenario/route_observer.h):
//   - The master of a group goes dark (the first fault or crash Event targeting its node, named
//     as the group). Each NameServer drops it once its registration expires (120 s without one,
//     found by a 10 s scan): namesrv_drop_ms = from the last registration that NameServer took to
//     the first route of it without the group's master. Each client that routed to the group
//     follows at its next route poll (30 s): client_route_ms = from the moment every NameServer
//     had dropped the group to the client's first route without it (the largest over clients).
//   - A topic's queue count changes on any group (a NameServer's route shows other queue counts
//     for a group it kept): client_queue_lag_ms = until each client's route shows the new counts.
//   - failed_sends / slow_sends (over 1 s): sends started between the fault and the last client's
//     route change, the cost of the stale window.
//   - When the group is back (the heal or start Event), namesrv_back_ms and client_back_ms.
// Bounds: namesrv_drop_within_ms and client_route_within_ms (0: measured only), each with an
// allowance of kObserveEvery (the observers record a change up to that long after it happened; a
// run on real processes meets the bound's edge as often as the simulator does not). A set bound with
// nothing to measure (the group never dropped because it was back too soon) fails: the scenario
// gives no evidence.
#pragma once

#include "sim/check/registry.h"
#include "sim/check/verdict.h"
#include "sim/history/history.h"

namespace ferry::sim::check {

// The bounds: the master of `group` goes silent (and/or a topic's queues change); a bound of
// 0 ms: measured and printed, not judged.
struct RouteStalenessBounds {
  std::string group;
  std::int64_t namesrv_drop_within_ms = 130'000;
  std::int64_t client_route_within_ms = 30'000;
};

Verdict check_route_staleness(const History& h, const RouteStalenessBounds& bounds);

// The registry's entry (registry.h): a named check, [checks.route_staleness] in a scenario file.
CheckerSpec route_staleness_checker();

}  // namespace ferry::sim::check
