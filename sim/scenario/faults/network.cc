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
  a.real_apply = [](RealFaults& real, const FaultEntry& f) { return each_real_target(f, [&](const std::string& n) { return real.darken(n); }); };
  a.real_undo = [](RealFaults& real, const FaultEntry& f) { return each_real_target(f, [&](const std::string& n) { return real.undarken(n); }); };
  return a;
}

// The links between targets and peers cut (`cut` each pair); its undo heals them.
Status real_heal_links(RealFaults& real, const FaultEntry& f) {
  return each_real_link(f, [&](const std::string& a, const std::string& b) -> Status {
    FERRY_TRY(real.uncut(a, b));
    return real.uncut(b, a);
  });
}

FaultActionSpec link_cut_fault(std::string name, std::string story, void (cluster::Cluster::*cut)(NodeId, NodeId), bool both_ways) {
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
  a.real_apply = [both_ways](RealFaults& real, const FaultEntry& f) {
    return each_real_link(f, [&](const std::string& x, const std::string& y) -> Status {
      FERRY_TRY(real.cut(x, y));
      return both_ways ? real.cut(y, x) : Status();
    });
  };
  a.real_undo = real_heal_links;
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
                        &cluster::Cluster::partition, true);
}

FaultActionSpec partition_one_way_fault() {
  return link_cut_fault("partition_one_way",
                        "packets from the targets to the peers are dropped; with a duration, healed after it",
                        &cluster::Cluster::partition_one_way, false);
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
  a.real_apply = real_heal_links;
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
  a.real_apply = [](RealFaults& real, const FaultEntry&) { return real.heal_all(); };
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
  // This kernel has no netem qdisc: the runner's own relay delays the bytes (sim/real/delay_relay.h).
  a.real_apply = [](RealFaults& real, const FaultEntry& f) {
    const Duration extra = f.param<Duration>("latency");
    return each_real_link(f, [&](const std::string& x, const std::string& y) { return real.clog(x, y, extra); });
  };
  a.real_undo = [](RealFaults& real, const FaultEntry& f) {
    return each_real_link(f, [&](const std::string& x, const std::string& y) { return real.clog(x, y, Duration{}); });
  };
  return a;
}

}  // namespace ferry::sim::scenario
