// The scenario parser's sections, one file each (internal to sim/scenario): each reads its
// part of the top-level table into `out` and reports its problems to the reader's Diagnostics.
#pragma once

#include "sim/scenario/scenario.h"
#include "sim/scenario/toml_reader.h"

namespace ferry::sim::scenario {

// [cluster], [[brokers]], [[topics]] -> out.cluster
void parse_cluster(TableReader& top, Diagnostics& diag, Scenario& out);
// [[producers]], [[consumers]] -> out.producers / out.consumers (needs out.cluster)
void parse_workload(TableReader& top, Diagnostics& diag, Scenario& out);
// [[faults]] -> out.faults (needs the cluster and the workload, for the targets)
void parse_faults(TableReader& top, Diagnostics& diag, Scenario& out);
// [run], [liveness], [checks] (needs the cluster, for groups named by checks)
void parse_settings(TableReader& top, Diagnostics& diag, Scenario& out);

}  // namespace ferry::sim::scenario
