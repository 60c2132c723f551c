#include "sim/clock.h"

#include "runtime/assert.h"

namespace ferry::sim {

namespace {
constexpr std::int64_t kMillion = 1'000'000;
}

SimClock::SimClock(const MonoTime* world_now, WallMs epoch_wall_ms, std::int64_t skew_ms,
                   std::int64_t drift_ppm)
    : world_now_(world_now), epoch_wall_ms_(epoch_wall_ms), skew_ms_(skew_ms), drift_ppm_(drift_ppm) {
  FERRY_ASSERT(world_now != nullptr, "SimClock needs the world's time");
  FERRY_ASSERT(drift_ppm > -kMillion / 2, "drift {} ppm would stop the clock", drift_ppm);
  FERRY_ASSERT(drift_ppm < kMillion, "drift {} ppm is too large", drift_ppm);
}

WallMs SimClock::wall_ms() const { return epoch_wall_ms_ + to_ms(now().time_since_epoch()) + skew_ms_; }

MonoTime SimClock::node_time(MonoTime world) const {
  const __int128 v = to_ns(world);
  const __int128 t = v + v * drift_ppm_ / kMillion;
  return MonoTime(Duration(static_cast<std::int64_t>(t)));
}

MonoTime SimClock::world_time_at(MonoTime node) const {
  if (drift_ppm_ == 0) return node;
  const __int128 n = to_ns(node);
  // Estimate, then step to the exact first world time whose node reading is >= node.
  __int128 w = n * kMillion / (kMillion + drift_ppm_);
  auto reading = [this](__int128 x) { return to_ns(node_time(MonoTime(Duration(static_cast<std::int64_t>(x))))); };
  while (w > 0 && reading(w - 1) >= n) --w;
  while (reading(w) < n) ++w;
  return MonoTime(Duration(static_cast<std::int64_t>(w)));
}

}  // namespace ferry::sim
