// What the property library takes from the process around it — the environment and files — kept
// out of sim/ (held to the determinism lint): implemented in tools/property/environment.cc.
#pragma once

namespace ferry::sim::property {

// Once per process: unless FERRY_LOG names a level, the nodes' log lines are not printed (a
// property runs hundreds of clusters; a failure's message says how to replay it with logs).
void quiet_logs_unless_asked();

}  // namespace ferry::sim::property
