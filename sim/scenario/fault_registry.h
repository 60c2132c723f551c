// The fault actions a scenario's [[faults]] entries name, found by name: the scenario parser
// (which keys an action takes, their types, defaults and ranges), the FaultInjector (apply, undo,
// what the History records), the scenario writer, the report's fault windows and the docs table
// (checked against the registry by a test) all ask the registry, so a new fault action is one
// file: its FaultActionSpec and one registration line.
//
// Every entry has `at`, `action` and, as the action's spec says, `target` (node names), `peers`
// (the other side of a link), `duration` (how long until its undo, or a crash's downtime); the
// action's own keys are OptionSpecs (sim/history/option_value.h) and their values are in
// FaultEntry::params, every key filled (the parser and make_fault() put the defaults in).
//
// The built-in actions are registered in a fixed order (faults/builtin_faults.cc: the order the
// parser lists them in its messages); an action defined elsewhere (a test, a user's build)
// registers with a static RegisterFaultAction object and comes after them, in name order.
// Registration happens before main; the registry is read-only from its first use on.
#pragma once

#include <any>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/result.h"
#include "sim/cluster/cluster.h"
#include "sim/history/history.h"
#include "sim/history/option_value.h"
#include "sim/history/spec_registry.h"
#include "sim/scenario/real_faults.h"
#include "sim/scenario/scenario.h"
#include "sim/scenario/toml_reader.h"

namespace ferry::sim::scenario {

// What an action may touch while it is applied or undone: the cluster, its nodes by name, and
// state it keeps until the heal (what a filled disk's capacity was). The FaultInjector is one.
class FaultContext {
 public:
  virtual ~FaultContext() = default;
  virtual cluster::Cluster& cluster() = 0;
  // invalid_argument naming the node when there is none of that name (yet).
  virtual Result<NodeId> node(const std::string& name) const = 0;
  // State of action `action` kept until the heal, made (value-initialized) on first use.
  template <typename T>
  T& state(const std::string& action) {
    std::any& a = states()[action];
    if (!a.has_value()) a = T{};
    return std::any_cast<T&>(a);
  }
  // `fn` on each target of `f`, stopping at the first error (an unknown node is one).
  Status each_target(const FaultEntry& f, const std::function<Status(NodeId)>& fn);
  // The same for an `fn` that cannot fail: only an unknown node stops it.
  Status for_targets(const FaultEntry& f, const std::function<void(NodeId)>& fn);
  // `fn` on each (target, peer) pair of `f`.
  Status each_link(const FaultEntry& f, const std::function<void(NodeId, NodeId)>& fn);
  // Puts back what every action's restore() puts back, then heals the cluster's network and
  // starts its down nodes (Cluster::heal_all): the heal_all action.
  virtual void heal_all() = 0;

 protected:
  virtual std::map<std::string, std::any>& states() = 0;
};

// What the parser hands an action's validate(): the entry as read so far and where to report.
struct FaultCheck {
  TableReader& reader;
  const Scenario& scenario;
  const std::set<std::string>& nodes;  // every node name of the scenario
  const FaultEntry& entry;
};

struct FaultActionSpec {
  std::string name;       // "kill": the value of `action`
  std::string story;      // one line, for the docs
  bool targets = true;    // takes (and needs) `target`
  bool peers = false;     // takes (and needs) `peers`
  bool duration = false;  // may have a `duration`
  Duration duration_min = std::chrono::milliseconds(1);
  std::vector<OptionSpec> keys;  // its own keys
  // What the History records for the step (one Event a target): crash, fault, heal, promote. An
  // undo step is always a heal.
  EventKind event = EventKind::fault;
  // Checks beyond the keys' own (a target that must be a slave): report through check.reader.
  std::function<void(const FaultCheck& check)> validate;
  // Does it now. Errors (invalid_argument) are the scenario's mistakes or the runner's: a node
  // that does not exist (yet), a state the action cannot act on.
  std::function<Status(FaultContext& ctx, const FaultEntry& f)> apply;
  // The end of its duration (unset: a duration is not undone by a step of its own; a crash's
  // duration is its downtime, World::restart starts it again).
  std::function<Status(FaultContext& ctx, const FaultEntry& f)> undo;
  // Puts back, at the heal (FaultInjector::heal_all, restore_disks), whatever its applications
  // changed that the cluster's own heal does not (a filled disk's capacity). Unset: nothing.
  std::function<void(FaultContext& ctx)> restore;
  // The report's fault windows: whether `f` lasts (a window from `at` until its duration ends,
  // a later entry ends it, or the liveness phase heals it); unset: an instant.
  std::function<bool(const FaultEntry& f)> lasts;
  // Whether this action, as entry `later`, ends the earlier lasting entry `f` that has no
  // duration (a heal of a partition, a resume of a pause); unset: it ends none.
  std::function<bool(const FaultEntry& f, const FaultEntry& later)> ends;
  // Words the report adds to the entry's description (" (+500ms latency)"); unset: none.
  std::function<std::string(const FaultEntry& f)> detail;

  // ---- on real processes (`mqsim run --real`, real_faults.h) ----
  // Does it to real processes and the kernel's network; unset: it cannot run for real, and
  // real_refusal says why (one sentence, for `mqsim list --real` and the run's refusal). An action
  // with an undo has a real_undo too.
  std::function<Status(RealFaults& real, const FaultEntry& f)> real_apply;
  std::function<Status(RealFaults& real, const FaultEntry& f)> real_undo;
  std::string real_refusal;
  // For an action that runs for real only with some of its keys: why this entry cannot (""
  // when it can). Unset: every entry can when real_apply is set.
  std::function<std::string(const FaultEntry& f)> real_refuses;
};

// `fn` on each target of `f` (each (target, peer) pair), for real_apply: stops at the first error.
Status each_real_target(const FaultEntry& f, const std::function<Status(const std::string&)>& fn);
Status each_real_link(const FaultEntry& f, const std::function<Status(const std::string&, const std::string&)>& fn);

// Why `f` cannot run on real processes ("" when it can): its action's real_refusal, or what
// real_refuses says of its keys.
std::string real_refusal(const FaultEntry& f);

using FaultRegistry = SpecRegistry<FaultActionSpec>;

// The registry (made on first use; read-only from then on).
const FaultRegistry& fault_actions();

// Every key some action takes besides at, action, target, peers and duration, in the registry's
// order (the parser refuses them, by name, in an entry whose action does not take them).
std::vector<std::string_view> fault_action_keys();

// Registers an action defined outside the built-in list: a static object in its own file.
// Asserts that the name is new and that the registry has not been read yet.
struct RegisterFaultAction {
  explicit RegisterFaultAction(FaultActionSpec spec) { FaultRegistry::add(std::move(spec)); }
};

// The built-in actions, in order (faults/builtin_faults.cc).
std::vector<FaultActionSpec> builtin_fault_actions();

// The `latency` key of the actions that add latency (clog, slow_disk): required, 1 us to 10 min.
OptionSpec extra_latency_key();

// True when `a` and `b` name a target in common (for FaultActionSpec::ends).
bool shares_target(const FaultEntry& a, const FaultEntry& b);

// An entry of `action` at `at` with every key at its default: for code that writes schedules
// (the property generator, tests). Asserts that the action exists.
FaultEntry make_fault(std::string action, Duration at, std::vector<std::string> targets = {},
                      std::vector<std::string> peers = {});

}  // namespace ferry::sim::scenario
