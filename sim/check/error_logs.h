// Checker "error-logs": no node logged an error the scenario did not expect. Each error- or
// critical-level line in History::error_logs whose text contains none of the substrings in
// settings.expected_errors is a violation naming the node, the virtual time and the text (the
// violation's time is the line's). Lines past the kept bound (History::error_logs_not_kept) are
// counted, not judged: their text was not kept.
// Figures: error_lines (kept and not kept), expected, unexpected, and not_kept when any were.
#pragma once

#include "sim/check/registry.h"
#include "sim/check/verdict.h"
#include "sim/history/history.h"

namespace ferry::sim::check {

Verdict check_error_logs(const History& h);

// The registry's entry (registry.h): runs on every History.
CheckerSpec error_logs_checker();

}  // namespace ferry::sim::check
