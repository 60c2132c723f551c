// run_real: one run of a scenario file on real processes (`mqsim run FILE --real`): the cluster
// as daemons in network namespaces (real_cluster.h), the same workload apps on the production
// runtime, the fault schedule done for real in real time (each action's real_apply), the
// liveness phase (heal everything, then the file's requirements within its bound), and the same
// checkers on the History it recorded. The History counts time from the run's start (the
// testbed made), so its figures read like a simulated run's.
//
// What cannot run for real is refused before anything starts (real_refusals(): a fault Linux
// cannot do here, a setting broker.conf cannot say, ...). Role targets ("master:broker-a") name the
// node the observer last saw in the role. Everything the run started is stopped and
// every namespace removed however it ends: passed, failed, refused, or interrupted (`interrupted`
// set by a signal handler: the run stops at its next step and says so).
//
// Not a deterministic replay: the seed draws the workload's keys as in the simulator, but the
// kernel's scheduling and timing are the machine's.
#pragma once

#include <atomic>
#include <cstdint>

#include "sim/real/real_cluster.h"
#include "sim/scenario/runner.h"
#include "sim/scenario/scenario.h"

namespace ferry::sim::real {

struct RealRunReport {
  std::string network;  // what did the links' faults (RealCluster::describe_network)
  std::string work_dir;
};

scenario::RunOutcome run_real(const scenario::Scenario& s, std::uint64_t seed, const RealRunOptions& options,
                              const std::atomic<bool>* interrupted = nullptr, RealRunReport* report = nullptr);

}  // namespace ferry::sim::real
