// Judging a History: every checker of the registry (registry.h) in its order — those that judge
// every History, and the named checks the History's settings ask for (History::settings.named) —
// each giving a Verdict. The scenario's rules come from History::settings; a named check listed in
// settings.figures_only gives its figures and violations and passes.
#pragma once

#include <vector>

#include "sim/check/registry.h"
#include "sim/check/verdict.h"
#include "sim/history/history.h"

namespace ferry::sim::check {

// A named check the settings ask for that this build has no checker for (a history recorded by
// another build) gets a failing verdict of its name saying so.
std::vector<Verdict> run_all_checks(const History& h);
// True when every verdict passed.
bool all_passed(const std::vector<Verdict>& verdicts);

}  // namespace ferry::sim::check
