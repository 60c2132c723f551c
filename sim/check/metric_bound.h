// Checker "metric_bound" (a named check: History::settings.named["metric_bound"]): a metric the
// runner sampled from the nodes' registries (History::metric_samples, kSampledMetrics; the same
// metrics the daemons' Prometheus endpoints serve) comes back below a bound after each fault.
//   metric   the family, e.g. rocketmq_consumer_lag_messages (its total over its series);
//   node     a broker group ("broker-a": the largest value of its master and slaves, whichever
//            node is master, as in controller mode), one node ("broker-a-s1", "namesrv-0"), or ""
//            for every group and node, summed;
//   max      the bound;
//   within   after each heal of a fault and each start of a crashed node (History events), the
//            value must be at most `max` within this long (it may be already);
//   at_end   the value the history ends with must be at most `max` too.
// Figures: recoveries (the heals and starts judged), worst_recovery_ms, peak (the largest value
// seen) and end_value. A value holds from its sample until the node's next one; a node that has
// not reported yet counts 0.
#pragma once

#include <cstdint>
#include <string>

#include "sim/check/registry.h"
#include "sim/check/verdict.h"
#include "sim/history/history.h"

namespace ferry::sim::check {

struct MetricBound {
  std::string metric;
  std::string node;  // a group or a node; "" = every group, summed
  std::int64_t max = 0;
  std::int64_t within_ms = 60'000;
  bool at_end = true;
};

Verdict check_metric_bound(const History& h, const MetricBound& bound);

// The registry's entry (registry.h): a named check, [checks.metric_bound] in a scenario file.
CheckerSpec metric_bound_checker();

}  // namespace ferry::sim::check
