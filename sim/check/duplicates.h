// Checker (c): duplicates, counted (at-least-once allows them). A duplicate is a delivery to a
// group of an intact message the group had already consumed (per consumer in a broadcast group,
// where every member receives everything: History::audience). Fails only when
// settings.duplicates_max >= 0 and the sum over groups exceeds it.
// Figures: duplicates, messages_duplicated, stored_twice (one producer#seq consumed from two
// different queue positions: a producer retry that stored it twice).
#pragma once

#include "sim/check/registry.h"
#include "sim/check/verdict.h"
#include "sim/history/history.h"

namespace ferry::sim::check {

Verdict check_duplicates(const History& h);

// The registry's entry (registry.h): runs on every History.
CheckerSpec duplicates_checker();

}  // namespace ferry::sim::check
