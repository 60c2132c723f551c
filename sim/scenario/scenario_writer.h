// The resolved form of a Scenario as a scenario file: every key written, defaults included, in
// the order docs/scenarios.md gives them. Parsing what it writes gives the same Scenario (and
// writing that gives the same text). The runner prints it when a run fails ("the resolved
// configuration"), so that a failure can be replayed from the text alone.
#pragma once

#include <string>

#include "sim/scenario/scenario.h"

namespace ferry::sim::scenario {

std::string write_scenario(const Scenario& s);

}  // namespace ferry::sim::scenario
