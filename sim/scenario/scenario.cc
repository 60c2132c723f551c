#include "sim/scenario/scenario.h"

#include <fmt/format.h>

#include "runtime/assert.h"
#include "sim/scenario/checker_catalog.h"
#include "sim/swarm.h"

namespace ferry::sim::scenario {

const char* consumer_kind_name(ConsumerKind k) { return k == ConsumerKind::push ? "push" : "lite_pull"; }
const char* consume_mode_name(ConsumeMode m) { return m == ConsumeMode::concurrently ? "concurrently" : "orderly"; }

namespace {

constexpr const char* kActionNames[] = {
    "kill",     "power_off", "restart", "silence",    "pause",     "resume",    "partition",  "partition_one_way",
    "isolate",  "heal",      "heal_all", "clog",      "skew_clock", "wipe_disk", "fill_disk", "promote_slave",
    "update_topic", "slow_disk", "lying_disk",
};
static_assert(std::size(kActionNames) == kFaultActionMax + 1, "a name for every FaultAction");

constexpr const char* kRequirementNames[] = {
    "brokers_running", "routes_converged", "producers_done", "all_acked_consumed", "consumers_assigned",
};
static_assert(std::size(kRequirementNames) == kRequirementMax + 1, "a name for every Requirement");

}  // namespace

const char* fault_action_name(FaultAction a) { return kActionNames[static_cast<std::size_t>(a)]; }

std::optional<FaultAction> parse_fault_action(std::string_view name) {
  for (std::size_t i = 0; i <= kFaultActionMax; ++i) {
    if (name == kActionNames[i]) return static_cast<FaultAction>(i);
  }
  return std::nullopt;
}

ActionKeys action_keys(FaultAction a) {
  switch (a) {
    case FaultAction::kill:
    case FaultAction::power_off:
    case FaultAction::silence:
    case FaultAction::pause:
    case FaultAction::isolate: return {true, false, true, ""};
    case FaultAction::restart: return {true, false, true, "kind,wipe"};
    case FaultAction::resume:
    case FaultAction::wipe_disk: return {true, false, false, ""};
    case FaultAction::partition:
    case FaultAction::partition_one_way: return {true, true, true, ""};
    case FaultAction::heal: return {true, true, false, ""};
    case FaultAction::heal_all: return {false, false, false, ""};
    case FaultAction::clog: return {true, true, true, "latency"};
    case FaultAction::skew_clock: return {true, false, false, "skew"};
    case FaultAction::fill_disk: return {true, false, true, "free_bytes"};
    case FaultAction::promote_slave: return {true, false, false, "role"};
    case FaultAction::update_topic: return {true, false, false, "topic,queues"};
    case FaultAction::slow_disk: return {true, false, true, "latency"};
    case FaultAction::lying_disk: return {true, false, true, ""};
  }
  return {};
}

bool action_takes(const ActionKeys& keys, std::string_view key) {
  std::string_view list = keys.extra;
  while (!list.empty()) {
    const std::size_t comma = list.find(',');
    if (list.substr(0, comma) == key) return true;
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return false;
}

const char* requirement_name(Requirement r) { return kRequirementNames[static_cast<std::size_t>(r)]; }

const char* lost_mode_name(LostMode m) {
  switch (m) {
    case LostMode::strict: return "strict";
    case LostMode::report: return "report";
    case LostMode::off: return "off";
  }
  return "?";
}

check::CheckSettings history_check_settings(const Scenario& s) {
  check::CheckSettings c;
  c.lost_strict = s.checks.lost == LostMode::strict;
  c.duplicates_max = s.checks.duplicates_max.value_or(-1);
  c.offsets_dense = s.checks.offsets_dense;
  c.offsets_monotonic = s.checks.offsets_monotonic;
  c.corrupt_fails = s.checks.corrupt;
  c.per_key_order = s.checks.per_key_order;
  c.expected_errors = s.checks.expected_errors;
  auto ms = [](const NamedCheck& n, std::string_view option) { return to_ms(check_option<Duration>(n, option)); };
  for (const NamedCheck& n : s.checks.named) {
    if (n.name == "failover") {
      c.failover = check::FailoverBounds{check_option<std::string>(n, "group"), ms(n, "sends_resume_within"),
                                         ms(n, "consume_from_slave_within"), ms(n, "writes_after_promotion_within")};
    } else if (n.name == "route_staleness") {
      c.route_staleness = check::RouteStalenessBounds{check_option<std::string>(n, "broker"), ms(n, "namesrv_drop_within"),
                                                      ms(n, "client_route_within")};
    } else if (n.name == "latency_backoff") {
      c.latency_backoff = check::LatencyBackoffBounds{check_option<std::string>(n, "broker"), ms(n, "slack")};
    } else if (n.name == "offset_persistence") {
      c.offset_persistence = check::OffsetPersistenceBounds{ms(n, "persist_interval"), ms(n, "slack")};
    } else if (n.name == "send_outcomes") {
      c.send_outcomes = check::SendOutcomesBounds{check_option<std::int64_t>(n, "failed_max"),
                                                  check_option<std::int64_t>(n, "unknown_max"),
                                                  check_option<std::int64_t>(n, "not_durable_min"),
                                                  ms(n, "slow"),
                                                  check_option<std::int64_t>(n, "slow_ok_min"),
                                                  check_option<std::string>(n, "group"),
                                                  ms(n, "writes_resume_within")};
    } else {
      FERRY_ASSERT(false, "named check {} (line {}) is in the catalog but not carried into the history's settings", n.name, n.line);
    }
  }
  return c;
}

WorldOptions world_options(const Scenario& s, std::uint64_t seed) {
  WorldOptions o = s.run.swarm ? swarm_options(seed) : WorldOptions{};
  o.seed = seed;
  return o;
}

std::vector<std::string> Scenario::node_names() const {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < cluster.namesrvs; ++i) out.push_back(fmt::format("namesrv-{}", i));
  for (const cluster::BrokerGroupSpec& g : cluster.brokers) out.push_back(g.name);
  for (const cluster::BrokerGroupSpec& g : cluster.brokers) {
    for (std::size_t k = 1; k <= g.slaves; ++k) out.push_back(fmt::format("{}-s{}", g.name, k));
  }
  for (const ProducerScenario& p : producers) out.push_back(p.node);
  for (const ConsumerScenario& c : consumers) out.push_back(c.node);
  return out;
}

}  // namespace ferry::sim::scenario
