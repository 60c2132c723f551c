// Every checker of a History, in a fixed order: lost-acked, unexpected, duplicates, key-order,
// queue-offsets, committed-offsets (one file each in sim/check/). The scenario's rules come from History::settings.
#pragma once

#include <vector>

#include "sim/check/committed_offsets.h"
#include "sim/check/duplicates.h"
#include "sim/check/history.h"
#include "sim/check/key_order.h"
#include "sim/check/lost_acked.h"
#include "sim/check/queue_offsets.h"
#include "sim/check/unexpected.h"
#include "sim/check/verdict.h"

namespace ferry::sim::check {

std::vector<Verdict> run_all_checks(const History& h);
// True when every verdict passed.
bool all_passed(const std::vector<Verdict>& verdicts);

}  // namespace ferry::sim::check
