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

// A host cut off (`cut` the node); its undo lets it back in.
FaultActionSpec host_cut_fault(std::string name, std::string story, void (cluster::Cluster::*cut)(NodeId)) {
  FaultActionSpec a;
  a.name = std::move(name);
  a.story = std::move(story);
  a.duration = true;
  a.apply = [cut](FaultContext& ctx, const FaultEntry& f) {
    return ctx.for_targets(f, [&](NodeId n) { (ctx.cluster().*cut)(n); });
  };
  a.undo = unisolate;
  a.lasts = always;
  return a;
}

// The links between targets and peers cut (`cut` each pair); its undo heals them.
FaultActionSpec link_cut_fault(std::string name, std::string story, void (cluster::Cluster::*cut)(NodeId, NodeId)) {
  FaultActionSpec a;
  a.name = std::move(name);
  a.story = std::move(story);
  a.peers = true;
  a.duration = true;
  a.apply = [cut](FaultContext& ctx, const FaultEntry& f) {
    return ctx.each_link(f, [&](NodeId x, NodeId y) { (ctx.cluster().*cut)(x, y); });
  };
  a.undo = heal_links;
  a.lasts = always;
  return a;
}

}  // namespace

FaultActionSpec silence_fault() {
  return host_cut_fault("silence", "the host goes dark, its process runs on; with a duration, back after it",
                        &cluster::Cluster::silence);
}

FaultActionSpec partition_fault() {
  return link_cut_fault("partition",
                        "every link between the targets and the peers cut, both ways; with a duration, healed after it",
                        &cluster::Cluster::partition);
}

FaultActionSpec partition_one_way_fault() {
  return link_cut_fault("partition_one_way",
                        "packets from the targets to the peers are dropped; with a duration, healed after it",
                        &cluster::Cluster::partition_one_way);
}

FaultActionSpec isolate_fault() {
  return host_cut_fault("isolate",
                        "every link of the targets cut (the same effect as silence); with a duration, rejoined after it",
                        &cluster::Cluster::isolate);
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
