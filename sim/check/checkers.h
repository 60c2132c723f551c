// Every checker of a History, in a fixed order: lost-acked, unexpected, duplicates, key-order,
// queue-offsets, committed-offsets, orderly-exclusive (one file each in sim/check/), then the named checks the
// settings ask for: failover, route_staleness, latency_backoff, offset_persistence, send_outcomes;
// last, error-logs (no error-level log line the scenario did not expect). The scenario's rules
// come from History::settings.
#pragma once

#include <vector>

#include "sim/check/committed_offsets.h"
#include "sim/check/duplicates.h"
#include "sim/check/error_logs.h"
#include "sim/check/failover.h"
#include "sim/check/history.h"
#include "sim/check/key_order.h"
#include "sim/check/latency_backoff.h"
#include "sim/check/lost_acked.h"
#include "sim/check/offset_persistence.h"
#include "sim/check/orderly_exclusive.h"
#include "sim/check/queue_offsets.h"
#include "sim/check/route_staleness.h"
#include "sim/check/send_outcomes.h"
#include "sim/check/unexpected.h"
#include "sim/check/verdict.h"

namespace ferry::sim::check {

std::vector<Verdict> run_all_checks(const History& h);
// True when every verdict passed.
bool all_passed(const std::vector<Verdict>& verdicts);

}  // namespace ferry::sim::check
