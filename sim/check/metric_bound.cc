#include "sim/check/metric_bound.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <vector>

namespace ferry::sim::check {

namespace {

constexpr Duration kHour = std::chrono::hours(1);

// The broker group of a node: "broker-a" for "broker-a" and its slaves "broker-a-s1"...; any
// other node is its own.
std::string group_of(const std::string& node) {
  const std::size_t dash = node.rfind("-s");
  if (dash == std::string::npos || dash + 2 >= node.size()) return node;
  for (std::size_t i = dash + 2; i < node.size(); ++i) {
    if (node[i] < '0' || node[i] > '9') return node;
  }
  return node.substr(0, dash);
}

// The metric's value from each change on, in time order: per broker group the largest value of
// its nodes (a master and its slaves report the same queues; only a master reports its slaves'
// lag), summed over the groups chosen.
std::vector<std::pair<MonoTime, double>> value_steps(const History& h, const MetricBound& b) {
  std::map<std::string, std::map<std::string, double>> current;  // group -> node -> its last sample
  std::vector<std::pair<MonoTime, double>> steps;
  for (const MetricSample& s : h.metric_samples) {
    if (s.metric != b.metric) continue;
    const std::string group = group_of(s.node);
    if (!b.node.empty() && s.node != b.node && group != b.node) continue;
    current[group][s.node] = s.value;
    double total = 0;
    for (const auto& [g, nodes] : current) {
      double most = 0;
      for (const auto& [node, v] : nodes) most = std::max(most, v);
      total += most;
    }
    if (!steps.empty() && steps.back().first == s.at) {
      steps.back().second = total;
    } else {
      steps.emplace_back(s.at, total);
    }
  }
  return steps;
}

std::string value_text(double v) { return fmt::format("{}", static_cast<std::int64_t>(v)); }

}  // namespace

Verdict check_metric_bound(const History& h, const MetricBound& b) {
  Verdict v;
  v.name = "metric_bound";
  const std::vector<std::pair<MonoTime, double>> steps = value_steps(h, b);
  const std::string what = b.node.empty() ? b.metric : fmt::format("{} of {}", b.metric, b.node);
  double peak = 0;
  for (const auto& [at, value] : steps) peak = std::max(peak, value);
  const double end_value = steps.empty() ? 0 : steps.back().second;
  v.figures["peak"] = static_cast<std::int64_t>(peak);
  v.figures["end_value"] = static_cast<std::int64_t>(end_value);
  if (steps.empty()) {
    v.violation(fmt::format("no sample of {}: the run never reported it (a metric the runner samples, of a node "
                            "that ran?)",
                            what));
    v.passed = false;
    return v;
  }
  // The value in force at `t` (0 before the first sample).
  auto value_at = [&steps](MonoTime t) {
    auto it = std::upper_bound(steps.begin(), steps.end(), t, [](MonoTime x, const auto& s) { return x < s.first; });
    return it == steps.begin() ? 0.0 : std::prev(it)->second;
  };
  const double bound = static_cast<double>(b.max);
  std::int64_t recoveries = 0, worst_ms = 0;
  for (const Event& e : h.events) {
    if (e.kind != EventKind::heal && e.kind != EventKind::start) continue;
    ++recoveries;
    std::optional<MonoTime> back;
    if (value_at(e.at) <= bound) {
      back = e.at;
    } else {
      for (const auto& [at, value] : steps) {
        if (at > e.at && value <= bound) {
          back = at;
          break;
        }
      }
    }
    if (!back) {
      v.violation(fmt::format("after {} {} at {} ms, {} never came back to {} or less (it ended at {})",
                              event_kind_name(e.kind), e.target.empty() ? e.detail : e.target, to_ms(e.at.time_since_epoch()),
                              what, b.max, value_text(end_value)),
                  e.at);
      continue;
    }
    const std::int64_t took = to_ms(*back - e.at);
    worst_ms = std::max(worst_ms, took);
    if (took > b.within_ms) {
      v.violation(fmt::format("after {} {}, {} took {} ms to come back to {} or less (bound {} ms; it was {} at the {})",
                              event_kind_name(e.kind), e.target.empty() ? e.detail : e.target, what, took, b.max,
                              b.within_ms, value_text(value_at(e.at)), event_kind_name(e.kind)),
                  e.at);
    }
  }
  v.figures["recoveries"] = recoveries;
  v.figures["worst_recovery_ms"] = worst_ms;
  if (b.at_end && end_value > bound) {
    v.violation(fmt::format("{} ends at {}, above the bound {}", what, value_text(end_value), b.max), steps.back().first);
  }
  v.passed = v.violations == 0;
  return v;
}

CheckerSpec metric_bound_checker() {
  std::vector<std::string_view> metrics(kSampledMetrics.begin(), kSampledMetrics.end());
  return CheckerSpec{
      "metric_bound",
      "a metric of the nodes' registries comes back below a bound within a time after each fault",
      false,
      {
          {.name = "metric", .default_value = std::string(), .story = "the metric (one the runner samples)",
           .required = true, .choices = metrics},
          {.name = "node", .default_value = std::string(),
           .story = "one node, or a broker group (its nodes' largest value); \"\": every group, summed"},
          {.name = "max", .default_value = std::int64_t{0}, .story = "the bound the value must come back to", .min = 0,
           .max = std::int64_t{1} << 52},
          {.name = "within", .default_value = Duration(std::chrono::seconds(60)),
           .story = "how long after each heal or restart it may stay above the bound", .max_duration = kHour},
          {.name = "at_end", .default_value = true, .story = "the value the run ends with must be within the bound too"},
      },
      Records(Record::events) | Record::metric_samples,
      [](const History& h, const OptionValues& o) {
        return check_metric_bound(h, MetricBound{option<std::string>(o, "metric"), option<std::string>(o, "node"),
                                                 option<std::int64_t>(o, "max"), option_ms(o, "within"),
                                                 option<bool>(o, "at_end")});
      }};
}

}  // namespace ferry::sim::check
