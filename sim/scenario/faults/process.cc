// Fault actions on a node's process: kill, power_off, restart (each a crash, started again after
// a duration when one is given), pause and resume (a long GC pause), wipe_disk.
#include <fmt/format.h>

#include "sim/scenario/duration_text.h"
#include "sim/scenario/fault_registry.h"
#include "sim/scenario/scenario_names.h"

namespace ferry::sim::scenario {

namespace {

constexpr const char* kPowerLossRefusal =
    "a power loss cannot be done to one process: the page cache outlives a process kill, so what it had not synced "
    "survives";

FaultActionSpec crash_action(std::string name, std::string story, CrashKind kind) {
  FaultActionSpec a;
  a.name = std::move(name);
  a.story = std::move(story);
  a.duration = true;
  a.event = EventKind::crash;
  a.apply = [kind](FaultContext& ctx, const FaultEntry& f) {
    return ctx.for_targets(f, [&](NodeId n) {
      if (f.duration) {
        ctx.cluster().restart(n, kind, *f.duration);
      } else {
        ctx.cluster().crash(n, kind);
      }
    });
  };
  a.lasts = [](const FaultEntry&) { return true; };
  if (kind == CrashKind::process_kill) {
    a.real_apply = [](RealFaults& real, const FaultEntry& f) {
      return each_real_target(f, [&](const std::string& n) -> Status {
        FERRY_TRY(real.kill(n));
        return f.duration ? real.start_after(n, *f.duration) : Status();
      });
    };
  } else {
    a.real_refusal = kPowerLossRefusal;
  }
  return a;
}

// Pauses the targets that are running (a node that is down or paused already is left as it is).
Status pause_running(FaultContext& ctx, const FaultEntry& f) {
  return ctx.for_targets(f, [&](NodeId n) {
    if (ctx.cluster().world().node(n).state() == SimNode::State::running) ctx.cluster().pause(n);
  });
}

// Resumes the targets that are paused.
Status resume_paused(FaultContext& ctx, const FaultEntry& f) {
  return ctx.for_targets(f, [&](NodeId n) {
    if (ctx.cluster().world().node(n).state() == SimNode::State::paused) ctx.cluster().resume(n);
  });
}

std::vector<std::string_view> crash_kind_choices() {
  std::vector<std::string_view> out;
  for (const auto& [name, kind] : crash_kind_names()) out.push_back(name);
  return out;
}

}  // namespace

FaultActionSpec kill_fault() {
  return crash_action("kill", "a process kill (the page cache survives); with a duration, started again after it",
                      CrashKind::process_kill);
}

FaultActionSpec power_off_fault() {
  return crash_action("power_off", "a power loss (unsynced data lost or torn); with a duration, started again after it",
                      CrashKind::power_loss);
}

FaultActionSpec restart_fault() {
  FaultActionSpec a;
  a.name = "restart";
  a.story = "a crash of `kind`, started again after `duration` (default 0), optionally on a wiped disk";
  a.duration = true;
  a.duration_min = Duration{};
  a.keys = {
      {.name = "kind",
       .default_value = std::string("kill"),
       .story = "how the node goes down (kill: a process kill, power_off: a power loss)",
       .choices = crash_kind_choices()},
      {.name = "wipe", .default_value = false, .story = "wipe the disk while the node is down"},
  };
  a.event = EventKind::crash;
  a.apply = [](FaultContext& ctx, const FaultEntry& f) {
    CrashKind kind = CrashKind::process_kill;
    for (const auto& [name, k] : crash_kind_names()) {
      if (name == f.param<std::string>("kind")) kind = k;
    }
    return ctx.for_targets(
        f, [&](NodeId n) { ctx.cluster().restart(n, kind, f.duration.value_or(Duration{}), f.param<bool>("wipe")); });
  };
  a.lasts = [](const FaultEntry& f) { return f.duration.has_value() && f.duration->count() > 0; };
  a.ends = [](const FaultEntry& f, const FaultEntry& later) {
    return (f.action == "kill" || f.action == "power_off") && shares_target(f, later);
  };
  a.detail = [](const FaultEntry& f) {
    return fmt::format(" (down {})", format_duration(f.duration.value_or(Duration{})));
  };
  a.real_apply = [](RealFaults& real, const FaultEntry& f) {
    return each_real_target(f, [&](const std::string& n) -> Status {
      FERRY_TRY(real.kill(n));
      if (f.param<bool>("wipe")) FERRY_TRY(real.wipe(n));
      return real.start_after(n, f.duration.value_or(Duration{}));
    });
  };
  a.real_refuses = [](const FaultEntry& f) -> std::string {
    return f.param<std::string>("kind") == "kill" ? "" : kPowerLossRefusal;
  };
  return a;
}

FaultActionSpec pause_fault() {
  FaultActionSpec a;
  a.name = "pause";
  a.story = "the node's events are held (a long GC pause); with a duration, resumed after it";
  a.duration = true;
  a.apply = [](FaultContext& ctx, const FaultEntry& f) { return pause_running(ctx, f); };
  a.undo = [](FaultContext& ctx, const FaultEntry& f) { return resume_paused(ctx, f); };
  a.real_apply = [](RealFaults& real, const FaultEntry& f) { return each_real_target(f, [&](const std::string& n) { return real.pause(n); }); };
  a.real_undo = [](RealFaults& real, const FaultEntry& f) { return each_real_target(f, [&](const std::string& n) { return real.resume(n); }); };
  a.lasts = [](const FaultEntry&) { return true; };
  return a;
}

FaultActionSpec resume_fault() {
  FaultActionSpec a;
  a.name = "resume";
  a.story = "ends a pause";
  a.event = EventKind::heal;
  a.apply = [](FaultContext& ctx, const FaultEntry& f) { return resume_paused(ctx, f); };
  a.real_apply = [](RealFaults& real, const FaultEntry& f) { return each_real_target(f, [&](const std::string& n) { return real.resume(n); }); };
  a.ends = [](const FaultEntry& f, const FaultEntry& later) { return f.action == "pause" && shares_target(f, later); };
  return a;
}

FaultActionSpec wipe_disk_fault() {
  FaultActionSpec a;
  a.name = "wipe_disk";
  a.story = "the targets' disks are emptied (the node must be down: kill it first)";
  a.apply = [](FaultContext& ctx, const FaultEntry& f) {
    return ctx.each_target(f, [&](NodeId n) -> Status {
      cluster::Cluster& c = ctx.cluster();
      if (c.world().node(n).up()) {
        return Error(Errc::invalid_argument,
                     fmt::format("wipe_disk: {} is up; kill it first (or use restart with wipe = true)", c.name_of(n)));
      }
      c.wipe_disk(n);
      return {};
    });
  };
  a.real_apply = [](RealFaults& real, const FaultEntry& f) { return each_real_target(f, [&](const std::string& n) { return real.wipe(n); }); };
  return a;
}

}  // namespace ferry::sim::scenario
