// Fault actions on the network: silence and isolate (a host goes dark), partition (both ways or
// one way), clog (extra latency), heal (links between targets and peers) and heal_all.
#include <fmt/format.h>

#include "sim/net/network.h"
#include "sim/scenario/duration_text.h"
#include "sim/scenario/fault_registry.h"

namespace ferry::sim::scenario {

namespace {

Status unisolate(FaultContext& ctx, const FaultEntry& f) {
  return ctx.for_targets(f, [&](NodeId n) { ctx.cluster().world().net().unisolate(n); });
}

Status heal_links(FaultContext& ctx, const FaultEntry& f) {
  return ctx.each_link(f, [&](NodeId a, NodeId b) { ctx.cluster().heal(a, b); });
}

bool always(const FaultEntry&) { return true; }

}  // namespace

FaultActionSpec silence_fault() {
  FaultActionSpec a;
  a.name = "silence";
  a.story = "the host goes dark, its process runs on; with a duration, back after it";
  a.duration = true;
  a.apply = [](FaultContext& ctx, const FaultEntry& f) {
    return ctx.for_targets(f, [&](NodeId n) { ctx.cluster().silence(n); });
  };
  a.undo = unisolate;
  a.lasts = always;
  return a;
}

FaultActionSpec partition_fault() {
  FaultActionSpec a;
  a.name = "partition";
  a.story = "every link between the targets and the peers cut, both ways; with a duration, healed after it";
  a.peers = true;
  a.duration = true;
  a.apply = [](FaultContext& ctx, const FaultEntry& f) {
    return ctx.each_link(f, [&](NodeId x, NodeId y) { ctx.cluster().partition(x, y); });
  };
  a.undo = heal_links;
  a.lasts = always;
  return a;
}

FaultActionSpec partition_one_way_fault() {
  FaultActionSpec a;
  a.name = "partition_one_way";
  a.story = "packets from the targets to the peers are dropped; with a duration, healed after it";
  a.peers = true;
  a.duration = true;
  a.apply = [](FaultContext& ctx, const FaultEntry& f) {
    return ctx.each_link(f, [&](NodeId x, NodeId y) { ctx.cluster().partition_one_way(x, y); });
  };
  a.undo = heal_links;
  a.lasts = always;
  return a;
}

FaultActionSpec isolate_fault() {
  FaultActionSpec a;
  a.name = "isolate";
  a.story = "every link of the targets cut (the same effect as silence); with a duration, rejoined after it";
  a.duration = true;
  a.apply = [](FaultContext& ctx, const FaultEntry& f) {
    return ctx.for_targets(f, [&](NodeId n) { ctx.cluster().isolate(n); });
  };
  a.undo = unisolate;
  a.lasts = always;
  return a;
}

FaultActionSpec heal_fault() {
  FaultActionSpec a;
  a.name = "heal";
  a.story = "heals the links between the targets and the peers, both ways";
  a.peers = true;
  a.event = EventKind::heal;
  a.apply = heal_links;
  a.ends = [](const FaultEntry& f, const FaultEntry& later) {
    return shares_target(f, later) || shares_target(later, f);
  };
  return a;
}

FaultActionSpec heal_all_fault() {
  FaultActionSpec a;
  a.name = "heal_all";
  a.story = "every link healed, every fault's lasting change put back, every down node started: takes no targets";
  a.targets = false;
  a.event = EventKind::heal;
  a.apply = [](FaultContext& ctx, const FaultEntry&) {
    ctx.heal_all();
    return Status();
  };
  a.ends = [](const FaultEntry&, const FaultEntry&) { return true; };
  return a;
}

FaultActionSpec clog_fault() {
  FaultActionSpec a;
  a.name = "clog";
  a.story = "extra latency on every packet from the targets to the peers; with a duration, unclogged after it";
  a.peers = true;
  a.duration = true;
  a.keys = {extra_latency_key()};
  a.apply = [](FaultContext& ctx, const FaultEntry& f) {
    const Duration extra = f.param<Duration>("latency");
    return ctx.each_link(f, [&](NodeId x, NodeId y) { ctx.cluster().clog(x, y, extra); });
  };
  a.undo = [](FaultContext& ctx, const FaultEntry& f) {
    return ctx.each_link(f, [&](NodeId x, NodeId y) { ctx.cluster().clog(x, y, Duration{}); });
  };
  a.lasts = always;
  a.detail = [](const FaultEntry& f) {
    return fmt::format(" (+{} latency)", format_latency(f.param<Duration>("latency")));
  };
  return a;
}

}  // namespace ferry::sim::scenario
