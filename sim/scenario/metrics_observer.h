// MetricsObserver: a Watch observer (watch.h) that samples the nodes' metrics registries
// (common/metrics.h: the same registries the daemons' Prometheus endpoints serve) in virtual time.
// Every second it collects, from each running broker, NameServer and controller, the families of
// kSampledMetrics (sim/history/history.h), and appends a sim::MetricSample (the family's total over its series) to the
// History when the value differs from the node's last sample (or is the node's first); a node
// found down has each of its values recorded as 0 (its counters start again from 0 when it
// comes back, as a restarted daemon's do). The report
// plots them under the timeline (sim/report/lanes.h), and the metric-bound checker judges them
// (sim/check/metric_bound.h).
// Read-only: collecting reads counters and the nodes' tables; it changes nothing in the World (a
// watched run has the trace hash of one that is not; tests/sim/metrics_observer_test.cc).
// Bounded: kMetricSamplesKeptMax samples, the rest counted (History::metric_samples_not_kept).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "sim/cluster/cluster.h"
#include "sim/history/history.h"

namespace ferry::sim::scenario {

inline constexpr Duration kMetricsEvery = std::chrono::seconds(1);

class MetricsObserver {
 public:
  MetricsObserver(cluster::Cluster& c, std::shared_ptr<sim::History> history) : cluster_(c), history_(std::move(history)) {}

  void look(MonoTime now);

 private:
  void sample(MonoTime now, const std::string& node, const metrics::Registry& registry);
  // `node` is down (crashed, stopped, not started again yet): what it reported is gone, as the
  // series of a target Prometheus cannot scrape are; each of its non-zero values is recorded as 0.
  void gone(MonoTime now, const std::string& node);

  cluster::Cluster& cluster_;
  std::shared_ptr<sim::History> history_;
  std::optional<MonoTime> next_;
  std::map<std::pair<std::string, std::string>, double> last_;  // (node, metric) -> last value recorded
};

}  // namespace ferry::sim::scenario
