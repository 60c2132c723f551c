// SimClock: a node's view of virtual time, with per-node drift, skew and jumps.
//
//   now()     = v + v * drift_ppm / 1e6             (v = the world's virtual time)
//   wall_ms() = epoch_wall_ms + ms(now()) + skew_ms (skew_ms changes with jump_wall)
//
// The monotonic clock never goes backwards (drift_ppm > -1e6 is checked). Timers convert a node
// deadline to world time with world_time_at().
#pragma once

#include <cstdint>

#include "runtime/clock.h"
#include "sim/options.h"

namespace ferry::sim {

class SimClock final : public Clock {
 public:
  // `world_now` is the world's virtual time; it must outlive the clock.
  SimClock(const MonoTime* world_now, WallMs epoch_wall_ms, std::int64_t skew_ms,
           std::int64_t drift_ppm);

  MonoTime now() const override { return node_time(*world_now_); }
  WallMs wall_ms() const override;

  // Moves the wall clock by `delta_ms` (either way); the monotonic clock is unaffected.
  void jump_wall(std::int64_t delta_ms) { skew_ms_ += delta_ms; }

  // The node's monotonic reading at world time `world`.
  MonoTime node_time(MonoTime world) const;
  // The earliest world time at which now() >= `node`.
  MonoTime world_time_at(MonoTime node) const;

  std::int64_t skew_ms() const { return skew_ms_; }
  std::int64_t drift_ppm() const { return drift_ppm_; }

 private:
  const MonoTime* world_now_;
  WallMs epoch_wall_ms_;
  std::int64_t skew_ms_;
  std::int64_t drift_ppm_;
};

}  // namespace ferry::sim
