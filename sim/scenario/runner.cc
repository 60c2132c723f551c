#include "sim/scenario/runner.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <utility>

#include "sim/scenario/controller_observer.h"
#include "sim/scenario/fault_schedule.h"
#include "sim/scenario/log_capture.h"
#include "sim/scenario/metrics_observer.h"
#include "sim/scenario/offset_observer.h"
#include "sim/scenario/route_observer.h"
#include "sim/scenario/store_observer.h"
#include "sim/scenario/take_observer.h"
#include "sim/scenario/watch.h"

namespace ferry::sim::scenario {

bool RunOutcome::passed() const { return first_failure().empty(); }

std::string RunOutcome::first_failure() const {
  if (error) return error->to_string();
  if (!live.missing.empty() || (!live.converged && live.took != Duration{})) return "liveness: " + live.to_string();
  for (const check::Verdict& v : verdicts) {
    if (!v.passed) return v.to_line();
  }
  return "";
}

bool is_broadcast(const ConsumerScenario& k) { return k.spec.config.message_model == client::MessageModel::BROADCASTING; }

cluster::ClientFactory consumer_factory(const ConsumerScenario& k, std::shared_ptr<sim::History> history) {
  if (k.kind == ConsumerKind::lite_pull) return cluster::lite_pull_consumer_app(k.spec, std::move(history));
  if (k.kind == ConsumerKind::pop) {
    // mode = "orderly" is FIFO POP (order=true).
    cluster::ConsumerSpec spec = k.spec;
    if (!spec.pop) spec.pop.emplace();
    spec.pop->fifo = k.mode == ConsumeMode::orderly;
    return cluster::pop_consumer_app(std::move(spec), std::move(history));
  }
  if (k.mode == ConsumeMode::orderly) return cluster::orderly_consumer_app(k.spec, std::move(history));
  return cluster::consumer_app(k.spec, std::move(history));
}

std::vector<ClientStep> client_steps(const Scenario& s) {
  std::vector<ClientStep> steps;
  for (std::size_t i = 0; i < s.producers.size(); ++i) {
    steps.push_back(ClientStep{s.producers[i].start_at, false, i, SIZE_MAX});
  }
  for (std::size_t i = 0; i < s.consumers.size(); ++i) {
    steps.push_back(ClientStep{s.consumers[i].start_at, false, SIZE_MAX, i});
    if (s.consumers[i].stop_at) steps.push_back(ClientStep{*s.consumers[i].stop_at, true, SIZE_MAX, i});
  }
  std::stable_sort(steps.begin(), steps.end(), [](const ClientStep& a, const ClientStep& b) { return a.at < b.at; });
  return steps;
}

std::optional<Error> mixed_models(const Scenario& s) {
  std::map<std::string, const ConsumerScenario*> first;
  for (const ConsumerScenario& k : s.consumers) {
    auto [it, fresh] = first.emplace(k.spec.group, &k);
    if (!fresh && is_broadcast(*it->second) != is_broadcast(k)) {
      return Error(Errc::invalid_argument, fmt::format("consumers {} and {} of group {} differ in message model", it->second->node, k.node,
                                                       k.spec.group));
    }
  }
  return std::nullopt;
}

namespace {

// The members of one (group, topic) that stay to the end, for the liveness requirements.
struct GroupMembers {
  bool broadcast = false;
  bool pop = false;  // POP consumers: no queue is anyone's
  std::vector<NodeId> nodes;
  std::vector<std::string> names;
};

// Where the run's clients are, by name and by group (filled as the schedule adds them).
struct Clients {
  std::map<std::string, NodeId> nodes;
  std::vector<NodeId> producers;
  std::map<std::pair<std::string, std::string>, GroupMembers> groups;  // (group, topic) -> members
};

// Adds, or stops for good, the client of `step`.
void apply_client_step(const Scenario& s, const ClientStep& step, cluster::Cluster& c, RunOutcome& out, Clients& clients) {
  const std::string& name = step.producer != SIZE_MAX ? s.producers[step.producer].node : s.consumers[step.consumer].node;
  if (step.stop) {
    const NodeId n = clients.nodes.at(name);
    c.retire(n);
    c.kill(n);
    // It left for good: a broadcast consumer is not asked for what came after (lost-acked).
    out.history->record_event(c.world().now(), sim::EventKind::crash, name, "stopped for good (stop_at)");
    if (auto it = out.history->consumers.find(name); it != out.history->consumers.end()) it->second.left_at = c.world().now();
    return;
  }
  NodeId n;
  if (step.producer != SIZE_MAX) {
    n = c.add_client(name, cluster::producer_app(s.producers[step.producer].spec, out.history));
    clients.producers.push_back(n);
  } else {
    const ConsumerScenario& cs = s.consumers[step.consumer];
    n = c.add_client(name, consumer_factory(cs, out.history));
    if (!cs.stop_at) {
      GroupMembers& g = clients.groups[{cs.spec.group, cs.spec.topic}];
      g.broadcast = is_broadcast(cs);
      g.pop = cs.kind == ConsumerKind::pop;
      g.nodes.push_back(n);
      g.names.push_back(name);
    }
  }
  clients.nodes.emplace(name, n);
}

// What the liveness phase waits for: the file's requirements, for the clients that stay.
std::vector<cluster::Convergence> liveness_requirements(const Scenario& s, cluster::Cluster& c, const RunOutcome& out,
                                                        const Clients& clients) {
  std::vector<cluster::Convergence> require;
  for (Requirement r : s.liveness.require) {
    switch (r) {
      case Requirement::brokers_running: require.push_back(c.brokers_running()); break;
      case Requirement::routes_converged:
        if (!s.checks.routes) break;  // [checks] routes = false: the file does not judge routes
        for (const cluster::TopicSpec& t : s.cluster.topics) require.push_back(c.routes_converged(t.name));
        break;
      case Requirement::producers_done: require.push_back(cluster::producers_done(c, clients.producers)); break;
      case Requirement::all_acked_consumed:
        // Clustering: the group as a whole; broadcasting: each member that stays.
        for (const auto& [key, members] : clients.groups) {
          if (!members.broadcast) {
            require.push_back(cluster::all_acked_consumed(out.history, key.first));
            // POP: and nothing it was handed is still out unacknowledged.
            if (members.pop) require.push_back(cluster::pop_deliveries_settled(out.history, key.first));
            continue;
          }
          for (const std::string& m : members.names) require.push_back(cluster::all_acked_consumed_by(out.history, m));
        }
        break;
      case Requirement::consumers_assigned:
        for (const auto& [key, members] : clients.groups) {
          if (members.pop) continue;  // POP consumers share every queue: nothing to assign
          require.push_back(cluster::consumers_assigned(c, key.second, members.nodes, members.broadcast));
        }
        break;
    }
  }
  return require;
}

// One seed, its nodes' log lines captured by `capture` (attached once the World exists): boot,
// the schedule of clients and faults with the observers watching, then the liveness phase and
// the checkers.
RunOutcome run_captured(const Scenario& s, std::uint64_t seed, LogCapture& capture, const LogSettings& printing) {
  RunOutcome out;
  out.seed = seed;
  if (auto mixed = mixed_models(s)) {
    out.error = std::move(mixed);
    return out;
  }
  out.cluster = std::make_unique<cluster::Cluster>(world_options(s, seed), s.cluster, NodeFactory{}, capture.settings(printing));
  cluster::Cluster& c = *out.cluster;
  capture.attach(c.world(), out.history);
  const MonoTime world_start = c.world().now();
  if (Status booted = c.boot(std::chrono::minutes(2)); !booted.ok()) {
    out.error = Error(booted.error().code, "boot: " + booted.error().detail);
    return out;
  }
  out.history->settings = history_check_settings(s);
  out.start = c.world().now();
  // Every start of a node again from here on (a restart that ends a crash, a start in the
  // liveness phase) is an event, so the checkers and the report see an old master come back. (A
  // node's first start is its creation; client apps record their own.)
  c.world().set_start_observer([history = out.history, world = &c.world()](NodeId n, std::uint64_t incarnation) {
    if (incarnation < 2) return;
    history->record_event(world->now(), sim::EventKind::start, world->node(n).node_name(),
                          fmt::format("started again (incarnation {})", incarnation));
  });

  Clients clients;
  FaultInjector faults(c, out.history);
  const std::vector<FaultStep> fault_steps = fault_timeline(s);
  const std::vector<ClientStep> client_schedule = client_steps(s);
  // Observers of the nodes' state, recording into the History what the checkers judge.
  Watch watch(sim::kObserveEvery);  // fine enough for bounds of seconds
  RouteObserver route_observer(c, clients.nodes, out.history);
  watch.add([&](MonoTime now) { route_observer(now); });
  OffsetObserver offsets(c, out.history);
  watch.add([&offsets](MonoTime now) { offsets.look(now); });
  TakeObserver takes(c, clients.nodes, out.history);
  watch.add([&takes](MonoTime now) { takes.look(now); });
  StoreObserver stores(c, out.history);
  watch.add([&stores](MonoTime now) { stores.look(now); });
  ControllerObserver controllers(c, out.history);
  watch.add([&controllers](MonoTime now) { controllers.look(now); });
  MetricsObserver metrics(c, out.history);
  watch.add([&metrics](MonoTime now) { metrics.look(now); });
  std::size_t f = 0, k = 0;
  while (f < fault_steps.size() || k < client_schedule.size()) {
    const bool client_next = k < client_schedule.size() && (f >= fault_steps.size() || client_schedule[k].at <= fault_steps[f].at);
    watch.advance(c, out.start + (client_next ? client_schedule[k].at : fault_steps[f].at));
    if (client_next) {
      apply_client_step(s, client_schedule[k++], c, out, clients);
      continue;
    }
    const FaultStep& step = fault_steps[f++];
    if (Status applied = faults.apply(step); !applied.ok()) {
      out.error = Error(applied.error().code, fmt::format("{}: {}", step.describe(), applied.error().detail));
      return out;
    }
  }
  watch.advance(c, out.start + s.run.length);
  faults.restore_disks();

  if (s.liveness.enabled) {
    out.live = c.heal_and_converge(liveness_requirements(s, c, out, clients), liveness_bound(s),
                                   [&] { watch.tick(c.world().now()); });
  } else {
    out.live.converged = true;
  }
  out.verdicts = check::run_all_checks(*out.history);
  out.trace_hash = c.world().final_hash();
  out.simulated = c.world().now() - world_start;
  return out;
}

}  // namespace

RunOutcome run_scenario(const Scenario& s, std::uint64_t seed, const LogSettings& printing) {
  LogCapture capture;  // detached however the run ends
  RunOutcome out = run_captured(s, seed, capture, printing);
  out.recent_logs = capture.finish();
  return out;
}

}  // namespace ferry::sim::scenario
