// Running a scenario's fault schedule against a live Cluster. The runner's loop is:
//
//   FaultInjector faults(cluster);
//   for (const FaultStep& step : fault_timeline(scenario)) {
//     cluster.run_for(step.at - elapsed);   // virtual time since boot
//     Status s = faults.apply(step);        // refusals are the scenario's mistakes: report them
//   }
//   ... run to run.length, then faults.heal_all() and the liveness phase.
//
// fault_timeline() turns every entry with a duration whose action has an undo into two steps: the
// fault at `at` and its undo at `at + duration` (resume a pause, rejoin a silenced or isolated
// host, heal a partition, unclog, give a filled disk its capacity back, ...). Crashes with a
// duration (kill, power_off, restart) are one step: World::restart starts the node again itself
// after the delay.
#pragma once

#include <any>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/result.h"
#include "sim/cluster/cluster.h"
#include "sim/history/history.h"
#include "sim/scenario/fault_registry.h"
#include "sim/scenario/scenario.h"

namespace ferry::sim::scenario {

struct FaultStep {
  Duration at{};                     // virtual time since boot
  const FaultEntry* entry = nullptr;  // points into the Scenario, which must outlive the step
  bool undo = false;                 // the end of entry's duration
  // "20s kill broker-a", "50s end of partition broker-a / namesrv-0" (for logs and histories).
  std::string describe() const;
};

// Every step of s.faults, ordered by time; steps at the same time keep the order of their entries
// in the file (an undo counts as its entry's: a fault before its own undo).
std::vector<FaultStep> fault_timeline(const Scenario& s);

// Records `step` in `h` at `at`: one Event a target and peer (the action's kind, a heal for an
// undo, the step's description), one without a target for a whole-cluster step.
void record_fault_step(sim::History& h, MonoTime at, const FaultStep& step);

// Role targets ("master:broker-a", target_alias.h) of fault steps named as nodes: resolved at a
// step's apply and kept for its undo, so the end of a fault heals the node it hurt. Shared by the
// simulated runner (FaultInjector) and the real one (sim/real/real_runner.h).
class RoleTargets {
 public:
  // The node a role names now; not_found for a vacant role.
  using Resolver = std::function<Result<std::string>(std::string_view alias)>;
  // The step's entry with its role targets named as nodes (the entry itself when it has none).
  // nullptr: the undo of an apply that was skipped. not_found: a vacant role (the caller skips
  // the step and records why).
  Result<const FaultEntry*> resolve(const FaultStep& step, const Resolver& resolver);

 private:
  std::map<const FaultEntry*, FaultEntry> resolved_;  // entries with role targets, as last applied
};

// Applies steps to one Cluster, whose every node the steps name must exist (the runner adds the
// client nodes before their first step), through the actions of the fault registry
// (fault_registry.h). Keeps what the actions keep until the heal (disk capacities, sync
// latencies, honest syncs: FaultContext::state).
// Single-threaded, like the Cluster; holds a reference to it.
class FaultInjector final : public FaultContext {
 public:
  // With a history, every applied step is recorded in it as an Event (the action's kind, a heal
  // for an undo, with the step's description), so that the checkers can explain redeliveries.
  explicit FaultInjector(cluster::Cluster& cluster, std::shared_ptr<sim::History> history = nullptr);

  // Does the step now (the action's apply, or its undo). Role targets ("master:broker-a",
  // target_alias.h) name the node that holds the role now; a vacant role skips the step (recorded
  // as an event saying so). Errors (invalid_argument) for what
  // cannot be done and is the scenario's mistake or the runner's: a node that does not exist
  // (yet), wipe_disk of a node that is up, promote_slave of a broker that is down, not running or
  // not a slave (a promotion is started on the slave's node and completes later; a failure is
  // logged there at error level; the group's old master is retired: the heal leaves it down).
  Status apply(const FaultStep& step);
  // Puts back what every action keeps until the heal (restore_disks), then Cluster::heal_all().
  // The liveness phase calls it (or Cluster::heal_and_converge after restore_disks()).
  void heal_all() override;
  // Every action's restore(), in the registry's order.
  void restore_disks();

  // FaultContext
  cluster::Cluster& cluster() override { return cluster_; }
  Result<NodeId> node(const std::string& name) const override;

 private:
  std::map<std::string, std::any>& states() override { return states_; }
  void record(const FaultStep& step);
  cluster::Cluster& cluster_;
  std::shared_ptr<sim::History> history_;
  std::map<std::string, std::any> states_;  // by action name
  RoleTargets roles_;
};

}  // namespace ferry::sim::scenario
