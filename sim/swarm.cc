#include "sim/swarm.h"

#include <fmt/format.h>

#include "runtime/random.h"

namespace ferry::sim {

namespace {
Duration between_us(Random& r, std::int64_t lo, std::int64_t hi) {
  return std::chrono::microseconds(r.between(lo, hi));
}
std::uint32_t ppm_upto(Random& r, std::uint32_t max_ppm) { return static_cast<std::uint32_t>(r.between(0, max_ppm)); }
}  // namespace

WorldOptions swarm_options(std::uint64_t seed) {
  Random r(seed ^ 0x5377'6172'6d21'0000ULL);  // "Swarm!": a stream apart from the world's
  WorldOptions o;
  o.seed = seed;

  o.network.latency_min = between_us(r, 10, 2'000);
  o.network.latency_tail_mean = r.one_in(2) ? between_us(r, 0, 5'000) : between_us(r, 0, 200);
  o.network.pipe_buffer_bytes = static_cast<std::uint64_t>(r.between(4 * 1024, 1024 * 1024));
  o.network.reset_keeps_prefix_ppm = ppm_upto(r, 1'000'000);

  if (r.one_in(2)) {
    o.disk.torn_write_on_crash_ppm = ppm_upto(r, 1'000'000);
    o.disk.torn_sector_keep_ppm = ppm_upto(r, 1'000'000);
    if (r.one_in(4)) o.disk.corrupt_torn_sector_ppm = ppm_upto(r, 100'000);
  }
  o.disk.sync_latency = between_us(r, 50, 5'000);
  if (r.one_in(3)) {
    o.disk.slow_sync_ppm = ppm_upto(r, 50'000);
    o.disk.slow_sync_latency = between_us(r, 10'000, 2'000'000);
  }
  if (r.one_in(4)) o.disk.eio_on_sync_ppm = ppm_upto(r, 5'000);
  if (r.one_in(4)) {
    o.disk.slow_read_ppm = ppm_upto(r, 20'000);
    o.disk.slow_read_latency = between_us(r, 1'000, 50'000);
  }

  if (r.one_in(2)) o.clock.skew_max_ms = r.between(0, 2'000);
  if (r.one_in(2)) o.clock.drift_max_ppm = r.between(0, 500);

  o.buggify.enabled = r.one_in(2);
  if (o.buggify.enabled) {  // drawn last: the draws above stay those of earlier builds
    o.buggify.site_enabled_ppm = static_cast<std::uint32_t>(r.between(100'000, 500'000));
    o.buggify.fire_ppm = static_cast<std::uint32_t>(r.between(50'000, 500'000));
  }
  o.check();
  return o;
}

namespace {
double ms(Duration d) { return static_cast<double>(std::chrono::duration_cast<std::chrono::microseconds>(d).count()) / 1000.0; }
double pct(std::uint32_t ppm) { return static_cast<double>(ppm) / 10'000.0; }
}  // namespace

std::string describe_world(const WorldOptions& o) {
  std::string out = fmt::format("net {:.2f} ms + tail {:.2f} ms; sync {:.1f} ms", ms(o.network.latency_min),
                                ms(o.network.latency_tail_mean), ms(o.disk.sync_latency));
  if (o.disk.slow_sync_ppm > 0) out += fmt::format(", slow {:.2f}% x {:.0f} ms", pct(o.disk.slow_sync_ppm), ms(o.disk.slow_sync_latency));
  if (o.disk.eio_on_sync_ppm > 0) out += fmt::format(", EIO {:.3f}%", pct(o.disk.eio_on_sync_ppm));
  if (o.disk.slow_read_ppm > 0) out += fmt::format("; slow reads {:.2f}% x {:.0f} ms", pct(o.disk.slow_read_ppm), ms(o.disk.slow_read_latency));
  if (o.disk.torn_write_on_crash_ppm > 0) out += fmt::format("; torn writes {:.0f}%", pct(o.disk.torn_write_on_crash_ppm));
  if (o.clock.skew_max_ms > 0 || o.clock.drift_max_ppm > 0) {
    out += fmt::format("; clocks +-{} ms, +-{} ppm", o.clock.skew_max_ms, o.clock.drift_max_ppm);
  }
  if (o.buggify.enabled) out += fmt::format("; buggify {:.0f}% of sites x {:.0f}%", pct(o.buggify.site_enabled_ppm), pct(o.buggify.fire_ppm));
  return out;
}

}  // namespace ferry::sim
