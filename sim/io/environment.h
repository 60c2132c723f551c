// What the simulator's libraries take from the process around them: the environment variables a
// property test or a runner reads. Kept here, in sim/io (the one folder of sim/ that the
// determinism lint exempts by name), so that nothing else of sim/ reads the environment.
#pragma once

#include <string>

namespace ferry::sim::io {

// Once per process: unless FERRY_LOG names a level, the nodes' log lines are not printed (a
// property runs hundreds of clusters; a failure's message says how to replay it with logs).
void quiet_logs_unless_asked();

// True when FERRY_PROPERTY_ANNOUNCE is set (non-empty): a property test writes each run's replay
// file before it runs and prints its command, so that a run that aborts the process (an
// assertion in component code) still leaves the command that replays it.
bool announce_requested();

// How a replay command names the simulation runner: $FERRY_MQSIM when set (ctest sets it to the
// mqsim of the build under test), else "build/bin/mqsim" (where the README's build puts it,
// relative to the repository). No library of sim/ knows where a build puts its programs.
std::string mqsim_command();

// Where replay files go: $FERRY_PROPERTY_DIR when set, else "property-failures" (relative to the
// working directory).
std::string property_dir();

}  // namespace ferry::sim::io
