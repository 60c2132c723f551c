#include "sim/options.h"

#include "runtime/assert.h"

namespace ferry::sim {

namespace {
constexpr std::uint32_t kMillion = 1'000'000;
}

void ClockOptions::check() const {
  FERRY_ASSERT(epoch_wall_ms >= 0, "clock.epoch_wall_ms {} is before 1970", epoch_wall_ms);
  FERRY_ASSERT(skew_max_ms >= 0, "clock.skew_max_ms {} is negative", skew_max_ms);
  FERRY_ASSERT(skew_max_ms <= 24LL * 3600 * 1000, "clock.skew_max_ms {} is over a day", skew_max_ms);
  FERRY_ASSERT(drift_max_ppm >= 0, "clock.drift_max_ppm {} is negative", drift_max_ppm);
  FERRY_ASSERT(drift_max_ppm <= 100'000, "clock.drift_max_ppm {} is over 10%", drift_max_ppm);
}

void NetworkOptions::check() const {
  FERRY_ASSERT(latency_min >= 0ns, "network.latency_min {} ns is negative", latency_min.count());
  FERRY_ASSERT(latency_tail_mean >= 0ns, "network.latency_tail_mean {} ns is negative",
               latency_tail_mean.count());
  FERRY_ASSERT(pipe_buffer_bytes > 0, "network.pipe_buffer_bytes must be positive");
  FERRY_ASSERT(accept_backlog_max > 0, "network.accept_backlog_max must be positive");
  FERRY_ASSERT_LE(reset_keeps_prefix_ppm, kMillion);
  FERRY_ASSERT(dead_peer_timeout >= 0ns, "network.dead_peer_timeout {} ns is negative", dead_peer_timeout.count());
}

void DiskOptions::check() const {
  FERRY_ASSERT(capacity_bytes > 0, "disk.capacity_bytes must be positive");
  FERRY_ASSERT(sync_latency >= 0ns, "disk.sync_latency {} ns is negative", sync_latency.count());
  FERRY_ASSERT(slow_sync_latency >= 0ns, "disk.slow_sync_latency {} ns is negative",
               slow_sync_latency.count());
  FERRY_ASSERT_LE(slow_sync_ppm, kMillion);
  FERRY_ASSERT_LE(eio_on_sync_ppm, kMillion);
  FERRY_ASSERT_LE(eio_on_read_ppm, kMillion);
  FERRY_ASSERT_LE(eio_on_create_ppm, kMillion);
  FERRY_ASSERT_LE(slow_read_ppm, kMillion);
  FERRY_ASSERT(slow_read_latency >= 0ns, "disk.slow_read_latency {} ns is negative", slow_read_latency.count());
  FERRY_ASSERT_LE(torn_write_on_crash_ppm, kMillion);
  FERRY_ASSERT_LE(torn_sector_keep_ppm, kMillion);
  FERRY_ASSERT_LE(corrupt_torn_sector_ppm, kMillion);
}

void BuggifyOptions::check() const {
  FERRY_ASSERT_LE(site_enabled_ppm, kMillion);
  FERRY_ASSERT_LE(fire_ppm, kMillion);
}

void WorldOptions::check() const {
  clock.check();
  network.check();
  disk.check();
  buggify.check();
}

}  // namespace ferry::sim
