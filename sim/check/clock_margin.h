// How far apart two nodes' clocks may read one moment in a run: each node's monotonic clock drifts
// from virtual time by up to 500 ppm (sim/swarm.cc, ClockOptions::drift_max_ppm), so at virtual
// time t two readings differ by up to t / 1000, plus a millisecond of rounding. Checkers that
// compare times two nodes recorded allow this much.
#pragma once

#include "runtime/time.h"

namespace ferry::sim::check {

inline Duration clock_margin(MonoTime t) {
  return std::chrono::duration_cast<Duration>(t.time_since_epoch() / 1000) + std::chrono::milliseconds(1);
}

}  // namespace ferry::sim::check
