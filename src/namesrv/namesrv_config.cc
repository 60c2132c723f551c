#include "namesrv/namesrv_config.h"

#include "runtime/assert.h"

namespace ferry::namesrv {

void RouteLimits::check() const {
  FERRY_ASSERT(clusters_max > 0, "clusters_max must be positive");
  FERRY_ASSERT(broker_names_max > 0, "broker_names_max must be positive");
  FERRY_ASSERT(broker_ids_per_name_max > 0, "broker_ids_per_name_max must be positive");
  FERRY_ASSERT(broker_addrs_max > 0, "broker_addrs_max must be positive");
  FERRY_ASSERT(topics_max > 0, "topics_max must be positive");
}

void KvLimits::check() const {
  FERRY_ASSERT(entries_max > 0, "kv entries_max must be positive");
  FERRY_ASSERT(name_bytes_max > 0, "kv name_bytes_max must be positive");
  FERRY_ASSERT(total_bytes_max >= 2 * name_bytes_max + value_bytes_max,
               "kv total_bytes_max {} holds not even one entry of the largest size", total_bytes_max);
}

void NameServerConfig::check() const {
  FERRY_ASSERT(!listen_host.empty(), "listen_host must not be empty");
  FERRY_ASSERT(scan_initial_delay >= Duration::zero(), "scan_initial_delay is negative: {} ms",
               to_ms(scan_initial_delay));
  FERRY_ASSERT(scan_interval > Duration::zero(), "scan_interval must be positive: {} ms", to_ms(scan_interval));
  FERRY_ASSERT(broker_expiry > Duration::zero(), "broker_expiry must be positive: {} ms", to_ms(broker_expiry));
  route_limits.check();
  kv_limits.check();
}

}  // namespace ferry::namesrv
