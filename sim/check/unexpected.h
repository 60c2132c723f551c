// Checker (b): nothing unexpected or corrupt is consumed. A delivery whose body fails its checksum
// is corrupt; an intact body naming a producer#seq no send recorded is unexpected (never sent);
// an intact body whose key differs from the recorded send's key is corrupt too.
// With settings.corrupt_fails false both are counted and the checker passes.
// Figures: deliveries, corrupt, unexpected. A violation names the consumer, queue and offset.
#pragma once

#include "sim/check/registry.h"
#include "sim/check/verdict.h"
#include "sim/history/history.h"

namespace ferry::sim::check {

Verdict check_unexpected(const History& h);

// The registry's entry (registry.h): runs on every History.
CheckerSpec unexpected_checker();

}  // namespace ferry::sim::check
