#include "sim/scenario/scenario.h"

#include <fmt/format.h>

#include <algorithm>

#include "runtime/assert.h"
#include "sim/swarm.h"

namespace ferry::sim::scenario {

const char* consumer_kind_name(ConsumerKind k) {
  switch (k) {
    case ConsumerKind::push: return "push";
    case ConsumerKind::lite_pull: return "lite_pull";
    case ConsumerKind::pop: return "pop";
  }
  return "?";
}
const char* consume_mode_name(ConsumeMode m) { return m == ConsumeMode::concurrently ? "concurrently" : "orderly"; }

namespace {

constexpr const char* kRequirementNames[] = {
    "brokers_running", "routes_converged", "producers_done", "all_acked_consumed", "consumers_assigned",
};
static_assert(std::size(kRequirementNames) == kRequirementMax + 1, "a name for every Requirement");

}  // namespace

const char* requirement_name(Requirement r) { return kRequirementNames[static_cast<std::size_t>(r)]; }

const char* lost_mode_name(LostMode m) {
  switch (m) {
    case LostMode::strict: return "strict";
    case LostMode::report: return "report";
    case LostMode::off: return "off";
  }
  return "?";
}

sim::CheckSettings history_check_settings(const Scenario& s) {
  sim::CheckSettings c;
  c.lost_strict = s.checks.lost == LostMode::strict;
  c.duplicates_max = s.checks.duplicates_max.value_or(-1);
  c.offsets_dense = s.checks.offsets_dense;
  c.offsets_monotonic = s.checks.offsets_monotonic;
  c.corrupt_fails = s.checks.corrupt;
  c.per_key_order = s.checks.per_key_order;
  c.expected_errors = s.checks.expected_errors;
  for (const NamedCheck& n : s.checks.named) c.named[n.name] = n.options;
  if (s.run.swarm) {
    c.expected_errors.insert(c.expected_errors.end(), s.swarm.expected_errors.begin(), s.swarm.expected_errors.end());
    c.expected_errors.emplace_back(DiskOptions::kEioOnSyncText);
    c.figures_only = s.swarm.figures_only;
  }
  return c;
}

Duration liveness_bound(const Scenario& s) {
  if (!s.run.swarm) return s.liveness.bound;
  if (s.swarm.liveness_bound) return *s.swarm.liveness_bound;
  Duration plan{};
  for (const ProducerScenario& p : s.producers) {
    plan = std::max(plan, p.start_at + p.spec.interval * static_cast<std::int64_t>(p.spec.messages));
  }
  return std::max(s.liveness.bound, kSwarmLivenessBound + plan);
}

WorldOptions world_options(const Scenario& s, std::uint64_t seed) {
  WorldOptions o = s.run.swarm ? swarm_options(seed) : WorldOptions{};
  o.seed = seed;
  return o;
}

std::size_t cut_to_length(Scenario& s, Duration length) {
  if (length >= s.run.length) return 0;
  s.run.length = length;
  for (ProducerScenario& p : s.producers) {
    const Duration left = length > p.start_at ? length - p.start_at : Duration{};
    if (p.spec.interval <= Duration{}) continue;
    p.spec.messages = std::min<std::uint64_t>(p.spec.messages, static_cast<std::uint64_t>(left / p.spec.interval));
  }
  const std::size_t before = s.faults.size();
  std::erase_if(s.faults, [&](const FaultEntry& f) { return f.at >= length; });
  return before - s.faults.size();
}

std::vector<std::string> Scenario::node_names() const {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < cluster.namesrvs; ++i) out.push_back(fmt::format("namesrv-{}", i));
  for (std::size_t i = 0; i < cluster.controllers; ++i) out.push_back(fmt::format("controller-{}", i));
  for (const cluster::BrokerGroupSpec& g : cluster.brokers) out.push_back(g.name);
  for (const cluster::BrokerGroupSpec& g : cluster.brokers) {
    for (std::size_t k = 1; k <= g.slaves; ++k) out.push_back(fmt::format("{}-s{}", g.name, k));
  }
  for (const ProducerScenario& p : producers) out.push_back(p.node);
  for (const ConsumerScenario& c : consumers) out.push_back(c.node);
  return out;
}

}  // namespace ferry::sim::scenario
