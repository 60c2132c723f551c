// run_scenario: one seed of a Scenario, end to end — the cluster booted, the clients added at
// their start times, the fault schedule applied as it comes due (FaultInjector), the run length
// played out, the liveness phase (heal everything, then the file's requirements within its bound),
// and every checker run on the recorded History. `mqsim run` and the scenario tests call it.
//
// Clients: producer_app and, by a consumer's kind and mode, consumer_app (push, concurrently),
// orderly_consumer_app (push, orderly) or lite_pull_consumer_app (sim/cluster/workload.h) nodes,
// clustering or broadcasting per their model, added at `start_at`; `stop_at` retires the node
// and kills it (a consumer that leaves for good; the liveness heal does not bring it back), an
// Event and ConsumerInfo::left_at of the History. Members of one group must share a model (else
// invalid_argument). The liveness requirements fit each: a clustering group consumes every
// acknowledged message as a whole and holds each queue once; every broadcast consumer that stays
// consumes what was sent since it started and holds every queue.
//
// Observers (watch.h): an OffsetObserver (offset_observer.h) records the masters' committed
// offsets into History::commits every 250 ms of virtual time, for the committed-offsets checker;
// a TakeObserver (take_observer.h) the queues push consumers take (History::takes), where a
// broadcast consumer started reading.
//
// Logs: the run captures its nodes' log lines whatever the printed level (log_capture.h): error
// lines into the History (judged by the error-logs checker against the file's expected_errors),
// the last lines at info and above into RunOutcome::recent_logs. What the nodes print goes to
// `printing` (the process defaults unless given), at its level; nothing of the process changes,
// so runs may go on in several threads at once, each with its own World and sinks.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/log.h"
#include "sim/check/checkers.h"
#include "sim/cluster/cluster.h"
#include "sim/cluster/workload.h"
#include "sim/scenario/recent_logs.h"
#include "sim/scenario/scenario.h"

namespace ferry::sim::scenario {

struct RunOutcome {
  std::uint64_t seed = 0;
  std::unique_ptr<cluster::Cluster> cluster;  // the world as the run left it (logs, state)
  std::shared_ptr<cluster::History> history = std::make_shared<cluster::History>();
  MonoTime start{};                  // virtual time when the workload started (after boot)
  cluster::LivenessReport live;      // not converged and empty when liveness is disabled
  std::vector<check::Verdict> verdicts;
  std::uint64_t trace_hash = 0;      // World::final_hash() at the end
  Duration simulated{};              // virtual time of the whole run, boot included
  // Why the run could not be carried out (boot failed, a fault could not be applied, an
  // unsupported client); the verdicts are then empty.
  std::optional<Error> error;

  // ---- the run's log (log_capture.h) ----
  // The last lines every node logged at info and above (bounded, timed by the World), whatever
  // the printed level: `mqsim run` prints those around a failed seed's first violation.
  RecentLogs recent_logs;

  // True when the run was carried out, converged (if liveness is enabled) and every checker passed.
  bool passed() const;
  // The first reason it did not pass, "" when it passed.
  std::string first_failure() const;
};

RunOutcome run_scenario(const Scenario& s, std::uint64_t seed, const LogSettings& printing = default_log_settings());

// ---- what the simulated and the real runner (sim/real/real_runner.h) share ----

// A client to add or stop at a time since the workload's start.
struct ClientStep {
  Duration at{};
  bool stop = false;
  std::size_t producer = SIZE_MAX;  // index into s.producers, else
  std::size_t consumer = SIZE_MAX;  // index into s.consumers
};
// Every client start and stop of `s`, in time order (the file's order at the same time).
std::vector<ClientStep> client_steps(const Scenario& s);
// A broadcasting consumer entry.
bool is_broadcast(const ConsumerScenario& k);
// The workload app of a consumer entry: by kind, mode (the listener) and, inside the app, model.
cluster::ClientFactory consumer_factory(const ConsumerScenario& k, std::shared_ptr<sim::History> history);
// One group's members must share a message model: RocketMQ keys a group's rebalance and its
// offsets (broker or local file) by it. invalid_argument naming two members that differ.
std::optional<Error> mixed_models(const Scenario& s);

}  // namespace ferry::sim::scenario
