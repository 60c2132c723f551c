// Running a scenario's fault schedule against a live Cluster. The runner's loop is:
//
//   FaultInjector faults(cluster);
//   for (const FaultStep& step : fault_timeline(scenario)) {
//     cluster.run_for(step.at - elapsed);   // virtual time since boot
//     Status s = faults.apply(step);        // refusals are the scenario's mistakes: report them
//   }
//   ... run to run.length, then faults.heal_all() and the liveness phase.
//
// fault_timeline() turns every entry with a duration into two steps: the fault at `at` and its
// undo at `at + duration` (resume a pause, rejoin a silenced or isolated host, heal a partition,
// unclog, give a filled disk its capacity back, give a slowed disk its sync latency back, make a
// lying disk honest again). Crashes with a duration (kill, power_off,
// restart) are one step: World::restart starts the node again itself after the delay.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/result.h"
#include "sim/check/history.h"
#include "sim/cluster/cluster.h"
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

// Applies steps to one Cluster, whose every node the steps name must exist (the runner adds the
// client nodes before their first step). Keeps what heal_all() must restore (disk capacities,
// sync latencies and honest syncs).
// Single-threaded, like the Cluster; holds a reference to it.
class FaultInjector {
 public:
  // With a history, every applied step is recorded in it as an Event (crash, fault or heal, with
  // the step's description), so that the checkers can explain redeliveries.
  explicit FaultInjector(cluster::Cluster& cluster, std::shared_ptr<check::History> history = nullptr);

  // Does the step now. Errors (invalid_argument) for what cannot be done and is the scenario's
  // mistake or the runner's: a node that does not exist (yet), wipe_disk of a node that is up,
  // promote_slave of a broker that is down, not running or not a slave. A promotion is started on
  // the slave's node and completes later (a failure is logged there at error level); the group's
  // old master is retired (Cluster::retire: the heal leaves it down, as the operator would).
  Status apply(const FaultStep& step);
  // Restores every filled disk's capacity, every slowed disk's sync latency and every lying
  // disk's honesty, then
  // Cluster::heal_all(). The liveness phase calls it (or Cluster::heal_and_converge after
  // restore_disks()).
  void heal_all();
  void restore_disks();

 private:
  Result<NodeId> node(const std::string& name) const;
  Status each_target(const FaultEntry& f, const std::function<Status(NodeId)>& fn);
  Status each_link(const FaultEntry& f, const std::function<void(NodeId, NodeId)>& fn);
  Status promote(NodeId n, const FaultEntry& f);
  Status fill_disk(NodeId n, const FaultEntry& f);
  void restore_disk(NodeId n);
  void slow_disk(NodeId n, const FaultEntry& f);
  void restore_sync_latency(NodeId n);
  void lying_disk(NodeId n);
  void restore_honest_sync(NodeId n);

  Status apply_now(const FaultStep& step);
  void record(const FaultStep& step);

  cluster::Cluster& cluster_;
  std::shared_ptr<check::History> history_;
  std::map<NodeId, std::uint64_t> capacity_before_fill_;
  std::map<NodeId, Duration> sync_latency_before_slow_;
  std::map<NodeId, bool> lying_before_;  // lying_disk: each lying disk's lying_sync before the fault
};

}  // namespace ferry::sim::scenario
