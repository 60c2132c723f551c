#include "sim/real/real_runner.h"

#include <algorithm>
#include <map>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "sim/real/real_logs.h"
#include "sim/scenario/fault_schedule.h"

namespace ferry::sim::real {

namespace {

constexpr Duration kBootLimit = std::chrono::minutes(2);
constexpr Duration kTick = std::chrono::milliseconds(20);
constexpr Duration kLivenessLook = std::chrono::milliseconds(250);

// Who a run's liveness phase waits for, filled as the clients are added.
struct Members {
  std::vector<std::string> producers;
  // (group, topic) -> broadcast?, the members that stay
  std::map<std::pair<std::string, std::string>, std::pair<bool, std::vector<std::string>>> groups;
  std::set<std::pair<std::string, std::string>> pop_groups;  // POP consumers: no queue is anyone's
};

// Sleeps until `until` (steady clock), ticking the cluster; false when interrupted first.
bool wait_until(RealCluster& c, MonoTime until, const std::atomic<bool>* interrupted) {
  for (;;) {
    if (interrupted != nullptr && interrupted->load()) return false;
    c.tick();
    const MonoTime now = real_now();
    if (now >= until) return true;
    std::this_thread::sleep_for(std::min<Duration>(kTick, until - now));
  }
}

Status apply_client_step(const scenario::Scenario& s, const scenario::ClientStep& step, RealCluster& c,
                         scenario::RunOutcome& out, Members& members) {
  if (step.stop) {
    const std::string& name = s.consumers[step.consumer].node;
    c.retire(name);
    FERRY_TRY(c.kill(name));
    out.history->record_event(real_now(), sim::EventKind::crash, name, "stopped for good (stop_at)");
    const auto held = out.history->hold();
    if (auto it = out.history->consumers.find(name); it != out.history->consumers.end()) it->second.left_at = real_now();
    return Status();
  }
  if (step.producer != SIZE_MAX) {
    const scenario::ProducerScenario& p = s.producers[step.producer];
    members.producers.push_back(p.node);
    return c.add_client(p.node, cluster::producer_app(p.spec, out.history));
  }
  const scenario::ConsumerScenario& k = s.consumers[step.consumer];
  if (!k.stop_at) {
    auto& g = members.groups[{k.spec.group, k.spec.topic}];
    g.first = scenario::is_broadcast(k);
    g.second.push_back(k.node);
    if (k.kind == scenario::ConsumerKind::pop) members.pop_groups.insert({k.spec.group, k.spec.topic});
  }
  return c.add_client(k.node, scenario::consumer_factory(k, out.history));
}

// Role targets are resolved as the observer last saw the roles (RealCluster::resolve_alias); a
// vacant role skips the step, recorded, as in the simulator.
Status apply_fault_step(const scenario::FaultStep& step, RealCluster& c, sim::History& h, scenario::RoleTargets& roles) {
  const scenario::FaultActionSpec& spec = scenario::fault_actions().at(step.entry->action);
  const auto& fn = step.undo ? spec.real_undo : spec.real_apply;
  if (!fn) return Error(Errc::unsupported, fmt::format("{} has no real {}", step.entry->action, step.undo ? "undo" : "apply"));
  auto entry = roles.resolve(step, [&c](std::string_view alias) { return c.resolve_alias(alias); });
  if (!entry.ok()) {
    if (entry.error().code != Errc::not_found) return std::move(entry).error();
    h.record_event(real_now(), sim::EventKind::fault, "", fmt::format("{}: skipped ({})", step.describe(), entry.error().detail));
    return Status();
  }
  if (*entry == nullptr) return Status();  // the undo of a skipped step
  FERRY_TRY(fn(c, **entry));
  scenario::record_fault_step(h, real_now(), scenario::FaultStep{step.at, *entry, step.undo});
  return Status();
}

std::vector<cluster::Convergence> requirements(const scenario::Scenario& s, RealCluster& c, const scenario::RunOutcome& out,
                                               const Members& members) {
  std::vector<cluster::Convergence> require;
  auto locked = [history = out.history](cluster::Convergence k) {
    return cluster::Convergence{k.name, [history, k]() {
                                  const auto held = history->hold();
                                  return k.pending();
                                }};
  };
  for (scenario::Requirement r : s.liveness.require) {
    switch (r) {
      case scenario::Requirement::brokers_running: require.push_back(c.brokers_running()); break;
      case scenario::Requirement::routes_converged:
        if (!s.checks.routes) break;
        for (const cluster::TopicSpec& t : s.cluster.topics) require.push_back(c.routes_converged(t.name));
        break;
      case scenario::Requirement::producers_done: require.push_back(c.producers_done(members.producers)); break;
      case scenario::Requirement::all_acked_consumed:
        for (const auto& [key, g] : members.groups) {
          if (!g.first) {
            require.push_back(locked(cluster::all_acked_consumed(out.history, key.first)));
            // POP: and nothing it was handed is still out unacknowledged.
            if (members.pop_groups.count(key) > 0) require.push_back(locked(cluster::pop_deliveries_settled(out.history, key.first)));
            continue;
          }
          for (const std::string& m : g.second) require.push_back(locked(cluster::all_acked_consumed_by(out.history, m)));
        }
        break;
      case scenario::Requirement::consumers_assigned:
        for (const auto& [key, g] : members.groups) {
          if (members.pop_groups.count(key) > 0) continue;  // POP consumers share every queue
          require.push_back(c.consumers_assigned(key.second, g.second, g.first));
        }
        break;
    }
  }
  return require;
}

cluster::LivenessReport converge(RealCluster& c, const std::vector<cluster::Convergence>& require, Duration bound,
                                 const std::atomic<bool>* interrupted) {
  const MonoTime healed = real_now();
  cluster::LivenessReport report;
  for (;;) {
    std::vector<std::string> missing;
    for (const cluster::Convergence& k : require) {
      if (auto p = k.pending()) missing.push_back(k.name + ": " + *p);
    }
    report.took = real_now() - healed;
    if (missing.empty()) {
      report.converged = true;
      return report;
    }
    if (report.took >= bound || (interrupted != nullptr && interrupted->load())) {
      report.missing = std::move(missing);
      return report;
    }
    if (!wait_until(c, real_now() + kLivenessLook, interrupted)) continue;
  }
}

// The run from the testbed's start on; `out.error` says why it stopped early.
void run_on(const scenario::Scenario& s, RealCluster& c, scenario::RunOutcome& out, const std::atomic<bool>* interrupted) {
  if (Status booted = c.boot(kBootLimit); !booted.ok()) {
    out.error = Error(booted.error().code, "boot: " + booted.error().detail);
    return;
  }
  out.history->settings = scenario::history_check_settings(s);
  // What only the simulator sees: a broker's CommitLog before and after a crash (the StoreObserver
  // reads its memory and disk; store-prefix is not judged here), and the nodes' metrics registries
  // sampled every second (metric_bound is not judged here).
  out.history->unobserved = {"metric_samples", "store_restarts"};
  out.start = real_now();
  Members members;
  scenario::RoleTargets roles;
  const std::vector<scenario::FaultStep> faults = scenario::fault_timeline(s);
  const std::vector<scenario::ClientStep> clients = scenario::client_steps(s);
  std::size_t f = 0, k = 0;
  while (f < faults.size() || k < clients.size()) {
    const bool client_next = k < clients.size() && (f >= faults.size() || clients[k].at <= faults[f].at);
    const Duration at = client_next ? clients[k].at : faults[f].at;
    if (!wait_until(c, out.start + at, interrupted)) {
      out.error = Error(Errc::cancelled, "interrupted");
      return;
    }
    Status done = client_next ? apply_client_step(s, clients[k++], c, out, members) : apply_fault_step(faults[f], c, *out.history, roles);
    if (!done.ok()) {
      const std::string what = client_next ? "client step" : faults[f].describe();
      out.error = Error(done.error().code, fmt::format("{}: {}", what, done.error().detail));
      return;
    }
    if (!client_next) ++f;
  }
  if (!wait_until(c, out.start + s.run.length, interrupted)) {
    out.error = Error(Errc::cancelled, "interrupted");
    return;
  }
  if (!s.liveness.enabled) {
    out.live.converged = true;
    return;
  }
  if (Status healed = c.heal_all(); !healed.ok()) {
    out.error = Error(healed.error().code, "heal: " + healed.error().detail);
    return;
  }
  out.history->record_event(real_now(), sim::EventKind::heal, "", "liveness phase: everything healed");
  out.live = converge(c, requirements(s, c, out, members), scenario::liveness_bound(s), interrupted);
  if (interrupted != nullptr && interrupted->load()) out.error = Error(Errc::cancelled, "interrupted");
}

}  // namespace

scenario::RunOutcome run_real(const scenario::Scenario& s, std::uint64_t seed, const RealRunOptions& options,
                              const std::atomic<bool>* interrupted, RealRunReport* report) {
  scenario::RunOutcome out;
  out.seed = seed;
  if (auto mixed = scenario::mixed_models(s)) {
    out.error = std::move(mixed);
    return out;
  }
  // What runs that died left behind: their namespaces and mounts.
  (void)Testbed::sweep();
  (void)sweep_mounts();
  RealRunOptions o = options;
  o.client_log.sinks.push_back(history_error_sink(out.history));
  const MonoTime began = real_now();
  auto made = RealCluster::create(s, o, out.history);
  if (!made.ok()) {
    out.error = std::move(made).error();
    return out;
  }
  RealCluster& c = **made;
  if (report != nullptr) report->work_dir = c.work_dir();
  run_on(s, c, out, interrupted);
  if (report != nullptr) report->network = c.describe_network();
  if (Status stopped = c.stop(); !stopped.ok() && !out.error) out.error = Error(stopped.error().code, "stop: " + stopped.error().detail);
  for (const std::string& node : c.daemon_names()) record_daemon_errors(c.daemon_log(node), *out.history);
  {
    const auto held = out.history->hold();
    std::stable_sort(out.history->error_logs.begin(), out.history->error_logs.end(),
                     [](const sim::LogLine& a, const sim::LogLine& b) { return a.at < b.at; });
  }
  out.simulated = real_now() - began;
  // Times count from the workload's start, as in the simulator (whose boot takes a few virtual
  // milliseconds): a fault "at 20s" is at 20,000 ms in both. What the boot recorded is before 0.
  const MonoTime zero = out.start != MonoTime{} ? out.start : began;
  out.history->rebase_times(zero - MonoTime{});
  out.start = MonoTime{};
  if (!out.error) out.verdicts = check::run_all_checks(*out.history);
  return out;
}

}  // namespace ferry::sim::real
