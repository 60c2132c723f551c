#include "sim/scenario/fault_schedule.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iterator>

#include "runtime/assert.h"
#include "sim/scenario/duration_text.h"
#include "sim/scenario/target_alias.h"

namespace ferry::sim::scenario {

std::string FaultStep::describe() const {
  FERRY_ASSERT(entry != nullptr, "a FaultStep without its entry at {} ms", to_ms(at));
  std::string out = fmt::format("{} {}{}", format_duration(at), undo ? "end of " : "", entry->action);
  if (!entry->targets.empty()) fmt::format_to(std::back_inserter(out), " {}", fmt::join(entry->targets, ","));
  if (!entry->peers.empty()) fmt::format_to(std::back_inserter(out), " / {}", fmt::join(entry->peers, ","));
  return out;
}

std::vector<FaultStep> fault_timeline(const Scenario& s) {
  std::vector<FaultStep> steps;
  for (const FaultEntry& f : s.faults) {
    steps.push_back(FaultStep{f.at, &f, false});
    if (f.duration && fault_actions().at(f.action).undo) steps.push_back(FaultStep{f.at + *f.duration, &f, true});
  }
  std::stable_sort(steps.begin(), steps.end(), [](const FaultStep& a, const FaultStep& b) { return a.at < b.at; });
  return steps;
}

FaultInjector::FaultInjector(cluster::Cluster& cluster, std::shared_ptr<sim::History> history)
    : cluster_(cluster), history_(std::move(history)) {}

void record_fault_step(sim::History& h, MonoTime at, const FaultStep& step) {
  const EventKind kind = step.undo ? EventKind::heal : fault_actions().at(step.entry->action).event;
  // One event a target (a whole-cluster step has none): the checkers look events up by node.
  const std::string detail = step.describe();
  if (step.entry->targets.empty()) h.record_event(at, kind, "", detail);
  for (const std::string& t : step.entry->targets) h.record_event(at, kind, t, detail);
  for (const std::string& p : step.entry->peers) h.record_event(at, kind, p, detail);
}

void FaultInjector::record(const FaultStep& step) {
  if (history_) record_fault_step(*history_, cluster_.world().now(), step);
}

Result<NodeId> FaultInjector::node(const std::string& name) const {
  auto id = cluster_.world().find_node(name);
  if (!id) return Error(Errc::invalid_argument, fmt::format("no node \"{}\" in the cluster (not added yet?)", name));
  return *id;
}

Result<const FaultEntry*> RoleTargets::resolve(const FaultStep& step, const Resolver& resolver) {
  const FaultEntry& f = *step.entry;
  auto has_alias = [](const std::vector<std::string>& names) {
    return std::any_of(names.begin(), names.end(), [](const std::string& n) { return is_target_alias(n); });
  };
  if (!has_alias(f.targets) && !has_alias(f.peers)) return &f;
  auto kept = resolved_.find(&f);
  if (step.undo) {
    // The undo heals what the apply hurt; an apply that was skipped leaves nothing to heal.
    if (kept == resolved_.end()) return static_cast<const FaultEntry*>(nullptr);
    return &kept->second;
  }
  FaultEntry r = f;
  for (std::vector<std::string>* names : {&r.targets, &r.peers}) {
    for (std::string& n : *names) {
      if (!is_target_alias(n)) continue;
      auto node = resolver(n);
      if (!node.ok()) return std::move(node).error();
      n = *node;
    }
  }
  auto [it, fresh] = resolved_.insert_or_assign(&f, std::move(r));
  return &it->second;
}

Status FaultInjector::apply(const FaultStep& step) {
  FERRY_ASSERT(step.entry != nullptr, "a FaultStep without its entry at {} ms", to_ms(step.at));
  const FaultActionSpec& action = fault_actions().at(step.entry->action);
  FERRY_ASSERT(!step.undo || action.undo, "an undo step for {}, which has none", action.name);
  auto entry = roles_.resolve(step, [this](std::string_view alias) { return resolve_target_alias(alias, cluster_); });
  if (!entry.ok()) {
    if (entry.error().code != Errc::not_found) return std::move(entry).error();
    // A role nobody holds now (no master while the group elects one): nothing to hurt.
    if (history_) {
      history_->record_event(cluster_.world().now(), EventKind::fault, "",
                             fmt::format("{}: skipped ({})", step.describe(), entry.error().detail));
    }
    return {};
  }
  if (*entry == nullptr) return {};  // the undo of a skipped step
  const FaultStep resolved{step.at, *entry, step.undo};
  Status done = step.undo ? action.undo(*this, **entry) : action.apply(*this, **entry);
  if (done.ok()) record(resolved);
  return done;
}

void FaultInjector::restore_disks() {
  for (const FaultActionSpec& a : fault_actions().all()) {
    if (a.restore) a.restore(*this);
  }
}

void FaultInjector::heal_all() {
  restore_disks();
  cluster_.heal_all();
}

}  // namespace ferry::sim::scenario
