// Checker: an SQL92 subscription gets only what it selects. Every delivery to a consumer with a
// selector (ConsumerInfo::sql; sim/history/selection.h) must satisfy it on the properties the
// workload message carries (n = seq % 10, KEYS); a violation names the message, its properties
// and the consumer. That it gets everything it selects is lost-acked's judgement (a consumer is
// owed only what its selector selects). Figures: selective_consumers, selected_deliveries.
#pragma once

#include "sim/check/registry.h"
#include "sim/check/verdict.h"
#include "sim/history/history.h"

namespace ferry::sim::check {

Verdict check_selection(const History& h);

// The registry's entry (registry.h): runs on every History (passes with no selector).
CheckerSpec selection_checker();

}  // namespace ferry::sim::check
