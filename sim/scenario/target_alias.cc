#include "sim/scenario/target_alias.h"

#include <fmt/format.h>

namespace ferry::sim::scenario {

namespace {

constexpr std::string_view kMaster = "master:";
constexpr std::string_view kSlave = "slave:";
constexpr std::string_view kLeader = "controller:leader";

bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }

std::optional<std::size_t> group_index(const cluster::ClusterSpec& spec, std::string_view name) {
  for (std::size_t g = 0; g < spec.brokers.size(); ++g) {
    if (spec.brokers[g].name == name) return g;
  }
  return std::nullopt;
}

}  // namespace

bool is_target_alias(std::string_view name) {
  return starts_with(name, kMaster) || starts_with(name, kSlave) || starts_with(name, "controller:");
}

Status check_target_alias(std::string_view name, const Scenario& s) {
  if (starts_with(name, "controller:")) {
    if (name != kLeader) return Error(Errc::invalid_argument, fmt::format("\"{}\": the only controller role is controller:leader", name));
    if (s.cluster.controllers == 0) {
      return Error(Errc::invalid_argument, "controller:leader needs controllers ([cluster] controllers = 3)");
    }
    return {};
  }
  const bool master = starts_with(name, kMaster);
  const std::string_view group = name.substr(master ? kMaster.size() : kSlave.size());
  auto g = group_index(s.cluster, group);
  if (!g) return Error(Errc::invalid_argument, fmt::format("\"{}\": no broker group named \"{}\"", name, group));
  if (!master && s.cluster.brokers[*g].slaves == 0) {
    return Error(Errc::invalid_argument, fmt::format("\"{}\": group {} has no slaves", name, group));
  }
  return {};
}

Result<std::string> resolve_target_alias(std::string_view name, cluster::Cluster& c) {
  if (name == kLeader) {
    for (std::size_t i = 0; i < c.controller_count(); ++i) {
      const controller::Controller* ctl = c.controller(i);
      if (ctl != nullptr && ctl->raft().is_leader()) return c.name_of(c.controller_node(i));
    }
    return Error(Errc::not_found, "controller:leader: no controller is the leader now");
  }
  const bool master = starts_with(name, kMaster);
  const std::string_view group = name.substr(master ? kMaster.size() : kSlave.size());
  auto g = group_index(c.spec(), group);
  if (!g) return Error(Errc::invalid_argument, fmt::format("\"{}\": no broker group named \"{}\"", name, group));
  const std::optional<std::size_t> m = c.master_of(*g);
  if (master) {
    if (!m) return Error(Errc::not_found, fmt::format("{}: group {} has no running master now", name, group));
    return c.broker_label(*m);
  }
  std::optional<std::string> best;
  for (std::size_t i = 0; i < c.broker_count(); ++i) {
    if (c.broker_group(i) != *g || i == m || c.broker(i) == nullptr) continue;
    if (!best || c.broker_label(i) < *best) best = c.broker_label(i);
  }
  if (!best) return Error(Errc::not_found, fmt::format("{}: group {} has no running slave now", name, group));
  return *best;
}

}  // namespace ferry::sim::scenario
