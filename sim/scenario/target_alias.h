// Fault targets that name a role instead of a node, resolved when the fault is applied (controller
// mode moves the roles between nodes, so a scenario cannot know which node holds one):
//   "master:<group>"     the broker that is master of broker group <group> now (in controller mode
//                        the one the controllers named; otherwise the running broker with
//                        brokerId 0); error when the group has none running;
//   "slave:<group>"      the first running broker of <group>, in node-name order, that is not its
//                        master; error when there is none;
//   "controller:leader"  the controller that is the Raft leader now; error when none is.
// The FaultInjector resolves an entry's aliases at its apply step and keeps them for its undo, so
// the end of a fault heals the node it hurt; the History records the node's name.
#pragma once

#include <string>
#include <string_view>

#include "runtime/result.h"
#include "sim/cluster/cluster.h"
#include "sim/scenario/scenario.h"

namespace ferry::sim::scenario {

bool is_target_alias(std::string_view name);

// Whether `name` (an alias) can name a node of `s`: an unknown role, a group the scenario does not
// have, slave: of a group without slaves, controller:leader without controllers — each refused
// with a sentence.
Status check_target_alias(std::string_view name, const Scenario& s);

// The node `name` (an alias) names in `c` now. Errors: not_found, saying which role is vacant (the injector then skips the step and records why).
Result<std::string> resolve_target_alias(std::string_view name, cluster::Cluster& c);

}  // namespace ferry::sim::scenario
