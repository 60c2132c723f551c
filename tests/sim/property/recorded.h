// execute() of sim/property/property.h, with the run's final hash recorded for the same-seed rerun check
// (tests/support/sim_trace_log.h; rerun_check.sh fixes RapidCheck's seed, so both runs generate
// the same clusters).
#pragma once

#include "sim/property/property.h"
#include "tests/support/sim_trace_log.h"

namespace ferry::sim::property {

inline Outcome recorded(const GeneratedRun& run) {
  Outcome out = execute(run);
  ferry::testing::record_trace(out.result.cluster->world());
  return out;
}

}  // namespace ferry::sim::property
