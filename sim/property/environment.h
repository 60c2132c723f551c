// What the property library takes from the process around it — the environment and files — kept
// out of sim/ (held to the determinism lint): implemented in tools/property/environment.cc.
#pragma once

namespace ferry::sim::property {

// Once per process: unless FERRY_LOG names a level, the nodes' log lines are not printed (a
// property runs hundreds of clusters; a failure's message says how to replay it with logs).
void quiet_logs_unless_asked();

// When FERRY_PROPERTY_ANNOUNCE is set (non-empty), writes each run's replay file before it runs and
// prints its mqsim command to stderr: a run that aborts the process (an assertion in component code)
// never reaches RapidCheck's failure report, and the last command printed replays it.
struct GeneratedRun;
void announce_run_if_asked(const GeneratedRun& run);

}  // namespace ferry::sim::property
