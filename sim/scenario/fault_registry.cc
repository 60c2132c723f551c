#include "sim/scenario/fault_registry.h"

#include <fmt/format.h>

#include <algorithm>

#include "runtime/assert.h"

namespace ferry::sim::scenario {

namespace {

void check_spec(const FaultActionSpec& s) {
  FERRY_ASSERT(!s.name.empty(), "a fault action without a name");
  FERRY_ASSERT(static_cast<bool>(s.apply), "fault action {} has no apply", s.name);
  FERRY_ASSERT(!s.undo || s.duration, "fault action {} has an undo but takes no duration", s.name);
  FERRY_ASSERT(static_cast<bool>(s.real_apply) == s.real_refusal.empty(),
               "fault action {}: a real_apply or else a real_refusal saying why not, not both", s.name);
  FERRY_ASSERT(!s.real_apply || static_cast<bool>(s.undo) == static_cast<bool>(s.real_undo),
               "fault action {}: its undo and its real_undo go together", s.name);
  for (const OptionSpec& o : s.keys) {
    FERRY_ASSERT(!o.name.empty(), "fault action {} has a key without a name", s.name);
    for (std::string_view common : {"at", "action", "target", "peers", "duration"}) {
      FERRY_ASSERT(o.name != common, "fault action {} redefines the common key {}", s.name, common);
    }
  }
}

}  // namespace

Status FaultContext::each_target(const FaultEntry& f, const std::function<Status(NodeId)>& fn) {
  for (const std::string& t : f.targets) {
    auto n = node(t);
    if (!n.ok()) return std::move(n).error();
    FERRY_TRY(fn(*n));
  }
  return {};
}

Status FaultContext::for_targets(const FaultEntry& f, const std::function<void(NodeId)>& fn) {
  return each_target(f, [&](NodeId n) {
    fn(n);
    return Status();
  });
}

Status FaultContext::each_link(const FaultEntry& f, const std::function<void(NodeId, NodeId)>& fn) {
  for (const std::string& t : f.targets) {
    auto a = node(t);
    if (!a.ok()) return std::move(a).error();
    for (const std::string& p : f.peers) {
      auto b = node(p);
      if (!b.ok()) return std::move(b).error();
      fn(*a, *b);
    }
  }
  return {};
}

std::vector<std::string_view> fault_action_keys() {
  std::vector<std::string_view> keys;
  for (const FaultActionSpec& s : fault_actions().all()) {
    for (const OptionSpec& o : s.keys) {
      if (std::find(keys.begin(), keys.end(), o.name) == keys.end()) keys.push_back(o.name);
    }
  }
  return keys;
}

const FaultRegistry& fault_actions() {
  return FaultRegistry::instance("fault action", &builtin_fault_actions, &check_spec);
}

OptionSpec extra_latency_key() {
  return {.name = "latency",
          .default_value = Duration{},
          .story = "the extra latency (latency = \"500ms\")",
          .min_duration = std::chrono::microseconds(1),
          .max_duration = std::chrono::minutes(10),
          .required = true};
}

Status each_real_target(const FaultEntry& f, const std::function<Status(const std::string&)>& fn) {
  for (const std::string& t : f.targets) FERRY_TRY(fn(t));
  return {};
}

Status each_real_link(const FaultEntry& f, const std::function<Status(const std::string&, const std::string&)>& fn) {
  for (const std::string& t : f.targets) {
    for (const std::string& p : f.peers) FERRY_TRY(fn(t, p));
  }
  return {};
}

std::string real_refusal(const FaultEntry& f) {
  const FaultActionSpec& spec = fault_actions().at(f.action);
  if (!spec.real_apply) return spec.real_refusal;
  return spec.real_refuses ? spec.real_refuses(f) : std::string();
}

bool shares_target(const FaultEntry& a, const FaultEntry& b) {
  for (const std::string& t : a.targets) {
    if (std::find(b.targets.begin(), b.targets.end(), t) != b.targets.end()) return true;
  }
  return false;
}

FaultEntry make_fault(std::string action, Duration at, std::vector<std::string> targets,
                      std::vector<std::string> peers) {
  const FaultActionSpec& spec = fault_actions().at(action);
  FaultEntry f;
  f.at = at;
  f.action = std::move(action);
  f.targets = std::move(targets);
  f.peers = std::move(peers);
  for (const OptionSpec& o : spec.keys) f.params.emplace(std::string(o.name), o.default_value);
  return f;
}

}  // namespace ferry::sim::scenario
