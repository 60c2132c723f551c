#include "sim/scenario/fault_schedule.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iterator>

#include "broker/ha_role.h"
#include "runtime/assert.h"
#include "sim/disk/disk.h"
#include "sim/net/network.h"
#include "sim/node.h"
#include "sim/scenario/duration_text.h"

namespace ferry::sim::scenario {

namespace {

bool undoable(const FaultEntry& f) {
  switch (f.action) {
    case FaultAction::silence:
    case FaultAction::isolate:
    case FaultAction::pause:
    case FaultAction::partition:
    case FaultAction::partition_one_way:
    case FaultAction::clog:
    case FaultAction::fill_disk:
    case FaultAction::slow_disk:
    case FaultAction::lying_disk: return f.duration.has_value();
    default: return false;
  }
}

std::string join(const std::vector<std::string>& names) { return fmt::format("{}", fmt::join(names, ",")); }

Task<void> promote_task(broker::Broker* b, broker::BrokerRole role, Runtime* rt) {
  Status s = co_await b->promote(role);
  if (!s.ok()) {
    rt->log().error("scenario: promote_slave to {} failed: {}", broker::role_name(role), s.error().to_string());
  } else {
    rt->log().info("scenario: promoted to {}", broker::role_name(role));
  }
}

}  // namespace

std::string FaultStep::describe() const {
  FERRY_ASSERT(entry != nullptr, "a FaultStep without its entry at {} ms", to_ms(at));
  std::string out = fmt::format("{} {}{}", format_duration(at), undo ? "end of " : "", fault_action_name(entry->action));
  if (!entry->targets.empty()) fmt::format_to(std::back_inserter(out), " {}", join(entry->targets));
  if (!entry->peers.empty()) fmt::format_to(std::back_inserter(out), " / {}", join(entry->peers));
  return out;
}

std::vector<FaultStep> fault_timeline(const Scenario& s) {
  std::vector<FaultStep> steps;
  for (const FaultEntry& f : s.faults) {
    steps.push_back(FaultStep{f.at, &f, false});
    if (undoable(f)) steps.push_back(FaultStep{f.at + *f.duration, &f, true});
  }
  std::stable_sort(steps.begin(), steps.end(), [](const FaultStep& a, const FaultStep& b) { return a.at < b.at; });
  return steps;
}

FaultInjector::FaultInjector(cluster::Cluster& cluster, std::shared_ptr<check::History> history)
    : cluster_(cluster), history_(std::move(history)) {}

void FaultInjector::record(const FaultStep& step) {
  if (!history_) return;
  const FaultAction a = step.entry->action;
  check::EventKind kind = check::EventKind::fault;
  if (step.undo || a == FaultAction::heal || a == FaultAction::heal_all || a == FaultAction::resume) {
    kind = check::EventKind::heal;
  } else if (a == FaultAction::kill || a == FaultAction::power_off || a == FaultAction::restart) {
    kind = check::EventKind::crash;
  } else if (a == FaultAction::promote_slave) {
    kind = check::EventKind::promote;
  }
  // One event a target (a whole-cluster step has none): the checkers look events up by node.
  const std::string detail = step.describe();
  if (step.entry->targets.empty()) {
    history_->record_event(cluster_.world().now(), kind, "", detail);
  }
  for (const std::string& t : step.entry->targets) history_->record_event(cluster_.world().now(), kind, t, detail);
  for (const std::string& p : step.entry->peers) history_->record_event(cluster_.world().now(), kind, p, detail);
}

Result<NodeId> FaultInjector::node(const std::string& name) const {
  auto id = cluster_.world().find_node(name);
  if (!id) return Error(Errc::invalid_argument, fmt::format("no node \"{}\" in the cluster (not added yet?)", name));
  return *id;
}

Status FaultInjector::each_target(const FaultEntry& f, const std::function<Status(NodeId)>& fn) {
  for (const std::string& t : f.targets) {
    auto n = node(t);
    if (!n.ok()) return std::move(n).error();
    FERRY_TRY(fn(*n));
  }
  return {};
}

Status FaultInjector::each_link(const FaultEntry& f, const std::function<void(NodeId, NodeId)>& fn) {
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

Status FaultInjector::apply(const FaultStep& step) {
  FERRY_ASSERT(step.entry != nullptr, "a FaultStep without its entry at {} ms", to_ms(step.at));
  Status done = apply_now(step);
  if (done.ok()) record(step);
  return done;
}

Status FaultInjector::apply_now(const FaultStep& step) {
  const FaultEntry& f = *step.entry;
  cluster::Cluster& c = cluster_;
  if (step.undo) {
    FERRY_ASSERT(undoable(f), "an undo step for {}, which has none", fault_action_name(f.action));
    switch (f.action) {
      case FaultAction::silence:
      case FaultAction::isolate:
        return each_target(f, [&](NodeId n) {
          c.world().net().unisolate(n);
          return Status();
        });
      case FaultAction::pause:
        return each_target(f, [&](NodeId n) {
          if (c.world().node(n).state() == SimNode::State::paused) c.resume(n);
          return Status();
        });
      case FaultAction::partition:
      case FaultAction::partition_one_way: return each_link(f, [&](NodeId a, NodeId b) { c.heal(a, b); });
      case FaultAction::clog: return each_link(f, [&](NodeId a, NodeId b) { c.clog(a, b, Duration{}); });
      case FaultAction::fill_disk:
        return each_target(f, [&](NodeId n) {
          restore_disk(n);
          return Status();
        });
      case FaultAction::slow_disk:
        return each_target(f, [&](NodeId n) {
          restore_sync_latency(n);
          return Status();
        });
      case FaultAction::lying_disk:
        return each_target(f, [&](NodeId n) {
          restore_honest_sync(n);
          return Status();
        });
      default: return {};
    }
  }
  switch (f.action) {
    case FaultAction::kill:
    case FaultAction::power_off: {
      const CrashKind kind = f.action == FaultAction::kill ? CrashKind::process_kill : CrashKind::power_loss;
      return each_target(f, [&](NodeId n) {
        if (f.duration) {
          c.restart(n, kind, *f.duration);
        } else {
          c.crash(n, kind);
        }
        return Status();
      });
    }
    case FaultAction::restart:
      return each_target(f, [&](NodeId n) {
        c.restart(n, f.kind, f.duration.value_or(Duration{}), f.wipe);
        return Status();
      });
    case FaultAction::silence:
      return each_target(f, [&](NodeId n) {
        c.silence(n);
        return Status();
      });
    case FaultAction::isolate:
      return each_target(f, [&](NodeId n) {
        c.isolate(n);
        return Status();
      });
    case FaultAction::pause:
      return each_target(f, [&](NodeId n) {
        if (c.world().node(n).state() == SimNode::State::running) c.pause(n);
        return Status();
      });
    case FaultAction::resume:
      return each_target(f, [&](NodeId n) {
        if (c.world().node(n).state() == SimNode::State::paused) c.resume(n);
        return Status();
      });
    case FaultAction::partition: return each_link(f, [&](NodeId a, NodeId b) { c.partition(a, b); });
    case FaultAction::partition_one_way: return each_link(f, [&](NodeId a, NodeId b) { c.partition_one_way(a, b); });
    case FaultAction::heal: return each_link(f, [&](NodeId a, NodeId b) { c.heal(a, b); });
    case FaultAction::heal_all: heal_all(); return {};
    case FaultAction::clog: return each_link(f, [&](NodeId a, NodeId b) { c.clog(a, b, f.latency); });
    case FaultAction::skew_clock:
      return each_target(f, [&](NodeId n) {
        c.skew_wall_clock(n, f.skew_ms);
        return Status();
      });
    case FaultAction::wipe_disk:
      return each_target(f, [&](NodeId n) -> Status {
        if (c.world().node(n).up()) {
          return Error(Errc::invalid_argument,
                       fmt::format("wipe_disk: {} is up; kill it first (or use restart with wipe = true)", c.name_of(n)));
        }
        c.wipe_disk(n);
        return {};
      });
    case FaultAction::fill_disk: return each_target(f, [&](NodeId n) { return fill_disk(n, f); });
    case FaultAction::slow_disk:
      return each_target(f, [&](NodeId n) {
        slow_disk(n, f);
        return Status();
      });
    case FaultAction::lying_disk:
      return each_target(f, [&](NodeId n) {
        lying_disk(n);
        return Status();
      });
    case FaultAction::promote_slave: return each_target(f, [&](NodeId n) { return promote(n, f); });
    case FaultAction::update_topic:
      return each_target(f, [&](NodeId n) {
        auto index = cluster_.broker_index(cluster_.name_of(n));
        if (!index || *index >= cluster_.spec().brokers.size()) {
          return Status(Error(Errc::invalid_argument, fmt::format("update_topic: {} is not a broker group's master", cluster_.name_of(n))));
        }
        return cluster_.update_topic(*index, f.topic, f.queues);
      });
  }
  return {};
}

Status FaultInjector::promote(NodeId n, const FaultEntry& f) {
  std::optional<std::size_t> index;
  for (std::size_t i = 0; i < cluster_.broker_count(); ++i) {
    if (cluster_.broker_node(i) == n) index = i;
  }
  const std::string& name = cluster_.name_of(n);
  if (!index) return Error(Errc::invalid_argument, fmt::format("promote_slave: {} is not a broker", name));
  broker::Broker* b = cluster_.broker(*index);
  if (b == nullptr || b->state() != broker::Broker::State::running) {
    return Error(Errc::invalid_argument, fmt::format("promote_slave: broker {} is not running", name));
  }
  if (b->config().broker_role != broker::BrokerRole::slave) {
    return Error(Errc::invalid_argument, fmt::format("promote_slave: broker {} is not a slave (already promoted?)", name));
  }
  const broker::BrokerRole role = f.role.value_or(cluster_.spec().brokers.at(cluster_.broker_group(*index)).role);
  // The operator's procedure (docs/operations.md): the old master is gone for good; the liveness
  // phase's heal must not start it again as a second master of the group.
  cluster_.retire(cluster_.broker_node(cluster_.broker_group(*index)));
  SimNode& node = cluster_.world().node(n);
  node.spawn(promote_task(b, role, &node), "scenario-promote");
  return {};
}

Status FaultInjector::fill_disk(NodeId n, const FaultEntry& f) {
  SimDisk& disk = cluster_.world().node(n).disk();
  DiskOptions o = disk.options();
  capacity_before_fill_.emplace(n, o.capacity_bytes);  // the first fill's: what heal restores
  o.capacity_bytes = disk.used_bytes() + f.free_bytes;
  disk.set_options(o);
  return {};
}

void FaultInjector::restore_disk(NodeId n) {
  auto it = capacity_before_fill_.find(n);
  if (it == capacity_before_fill_.end()) return;
  SimDisk& disk = cluster_.world().node(n).disk();
  DiskOptions o = disk.options();
  o.capacity_bytes = it->second;
  disk.set_options(o);
  capacity_before_fill_.erase(it);
}

void FaultInjector::slow_disk(NodeId n, const FaultEntry& f) {
  SimDisk& disk = cluster_.world().node(n).disk();
  DiskOptions o = disk.options();
  sync_latency_before_slow_.emplace(n, o.sync_latency);  // the first slow-down's: what heal restores
  o.sync_latency += f.latency;
  disk.set_options(o);
}

void FaultInjector::restore_sync_latency(NodeId n) {
  auto it = sync_latency_before_slow_.find(n);
  if (it == sync_latency_before_slow_.end()) return;
  SimDisk& disk = cluster_.world().node(n).disk();
  DiskOptions o = disk.options();
  o.sync_latency = it->second;
  disk.set_options(o);
  sync_latency_before_slow_.erase(it);
}

void FaultInjector::lying_disk(NodeId n) {
  SimDisk& disk = cluster_.world().node(n).disk();
  DiskOptions o = disk.options();
  lying_before_.emplace(n, o.lying_sync);  // the first lie's: what heal restores
  o.lying_sync = true;
  disk.set_options(o);
}

void FaultInjector::restore_honest_sync(NodeId n) {
  auto it = lying_before_.find(n);
  if (it == lying_before_.end()) return;
  SimDisk& disk = cluster_.world().node(n).disk();
  DiskOptions o = disk.options();
  o.lying_sync = it->second;
  disk.set_options(o);
  lying_before_.erase(it);
}

void FaultInjector::restore_disks() {
  while (!capacity_before_fill_.empty()) restore_disk(capacity_before_fill_.begin()->first);
  while (!sync_latency_before_slow_.empty()) restore_sync_latency(sync_latency_before_slow_.begin()->first);
  while (!lying_before_.empty()) restore_honest_sync(lying_before_.begin()->first);
}

void FaultInjector::heal_all() {
  restore_disks();
  cluster_.heal_all();
}

}  // namespace ferry::sim::scenario
