// Fault actions on a node's disk: fill_disk (full but `free_bytes`), slow_disk (every sync takes
// `latency` more), lying_disk (syncs reported done without making anything durable). Each keeps
// what it changed until its undo or the heal (FaultActionSpec::restore): the first fault's value
// of a node is the one put back.
#include <fmt/format.h>

#include "sim/disk/disk.h"
#include "sim/node.h"
#include "sim/scenario/duration_text.h"
#include "sim/scenario/fault_registry.h"

namespace ferry::sim::scenario {

namespace {

// A fault that changes one option of the targets' disks: `set` changes it; its undo, and the heal,
// put back the value it had before the first such fault of the node (kept in the action's state).
template <typename T>
FaultActionSpec disk_option_fault(std::string name, std::string story, T DiskOptions::*field,
                                  std::function<void(DiskOptions&, const SimDisk&, const FaultEntry&)> set) {
  using Before = std::map<NodeId, T>;
  auto restore = [field](FaultContext& ctx, Before& before, NodeId n) {
    auto it = before.find(n);
    if (it == before.end()) return;
    SimDisk& disk = ctx.cluster().world().node(n).disk();
    DiskOptions o = disk.options();
    o.*field = it->second;
    disk.set_options(o);
    before.erase(it);
  };
  FaultActionSpec a;
  a.name = name;
  a.story = std::move(story);
  a.duration = true;
  a.apply = [name, field, set](FaultContext& ctx, const FaultEntry& f) {
    auto& before = ctx.state<Before>(name);
    return ctx.for_targets(f, [&](NodeId n) {
      SimDisk& disk = ctx.cluster().world().node(n).disk();
      DiskOptions o = disk.options();
      before.emplace(n, o.*field);  // the first fault's value is the one put back
      set(o, disk, f);
      disk.set_options(o);
    });
  };
  a.undo = [name, restore](FaultContext& ctx, const FaultEntry& f) {
    auto& before = ctx.state<Before>(name);
    return ctx.for_targets(f, [&](NodeId n) { restore(ctx, before, n); });
  };
  a.restore = [name, restore](FaultContext& ctx) {
    auto& before = ctx.state<Before>(name);
    while (!before.empty()) restore(ctx, before, before.begin()->first);
  };
  a.lasts = [](const FaultEntry&) { return true; };
  return a;
}

}  // namespace

FaultActionSpec fill_disk_fault() {
  FaultActionSpec a = disk_option_fault<std::uint64_t>(
      "fill_disk", "the targets' disks are full but `free_bytes`; with a duration, their capacity comes back after it",
      &DiskOptions::capacity_bytes, [](DiskOptions& o, const SimDisk& disk, const FaultEntry& f) {
        o.capacity_bytes = disk.used_bytes() + static_cast<std::uint64_t>(f.param<std::int64_t>("free_bytes"));
      });
  a.keys = {{.name = "free_bytes",
             .default_value = std::int64_t{0},
             .story = "what is left free",
             .max = std::int64_t{1} << 40}};
  // The broker's store is a tmpfs of the runner's; its size shrinks to what is used + free_bytes.
  a.real_apply = [](RealFaults& real, const FaultEntry& f) {
    return each_real_target(f, [&](const std::string& n) { return real.fill_disk(n, f.param<std::int64_t>("free_bytes")); });
  };
  a.real_undo = [](RealFaults& real, const FaultEntry& f) {
    return each_real_target(f, [&](const std::string& n) { return real.restore_disk(n); });
  };
  return a;
}

FaultActionSpec slow_disk_fault() {
  FaultActionSpec a = disk_option_fault<Duration>(
      "slow_disk", "every sync of the targets' disks takes `latency` more; with a duration, restored after it",
      &DiskOptions::sync_latency,
      [](DiskOptions& o, const SimDisk&, const FaultEntry& f) { o.sync_latency += f.param<Duration>("latency"); });
  a.keys = {extra_latency_key()};
  a.detail = [](const FaultEntry& f) {
    return fmt::format(" (+{} a sync)", format_latency(f.param<Duration>("latency")));
  };
  a.real_refusal = "slowing a real disk's syncs needs device-mapper's delay target, which this machine does not have";
  return a;
}

FaultActionSpec lying_disk_fault() {
  FaultActionSpec a = disk_option_fault<bool>(
      "lying_disk",
      "the targets' disks report syncs done without making anything durable; with a duration, honest again after it",
      &DiskOptions::lying_sync, [](DiskOptions& o, const SimDisk&, const FaultEntry&) { o.lying_sync = true; });
  a.real_refusal =
      "a disk that lies about syncs shows only after a power loss, and the page cache outlives a process kill";
  return a;
}

}  // namespace ferry::sim::scenario
