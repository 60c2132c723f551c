// The built-in fault actions, one line each (each defined in the file of its kind), in the order
// the parser lists them.
#include "sim/scenario/fault_registry.h"

namespace ferry::sim::scenario {

FaultActionSpec kill_fault();               // process.cc
FaultActionSpec power_off_fault();          // process.cc
FaultActionSpec restart_fault();            // process.cc
FaultActionSpec silence_fault();            // network.cc
FaultActionSpec pause_fault();              // process.cc
FaultActionSpec resume_fault();             // process.cc
FaultActionSpec partition_fault();          // network.cc
FaultActionSpec partition_one_way_fault();  // network.cc
FaultActionSpec isolate_fault();            // network.cc
FaultActionSpec heal_fault();               // network.cc
FaultActionSpec heal_all_fault();           // network.cc
FaultActionSpec clog_fault();               // network.cc
FaultActionSpec skew_clock_fault();         // clock.cc
FaultActionSpec wipe_disk_fault();          // process.cc
FaultActionSpec fill_disk_fault();          // disk.cc
FaultActionSpec promote_slave_fault();      // operator.cc
FaultActionSpec update_topic_fault();       // operator.cc
FaultActionSpec slow_disk_fault();          // disk.cc
FaultActionSpec lying_disk_fault();         // disk.cc

std::vector<FaultActionSpec> builtin_fault_actions() {
  return {kill_fault(),          power_off_fault(),    restart_fault(),           silence_fault(),   pause_fault(),
          resume_fault(),        partition_fault(),    partition_one_way_fault(), isolate_fault(),   heal_fault(),
          heal_all_fault(),      clog_fault(),         skew_clock_fault(),        wipe_disk_fault(), fill_disk_fault(),
          promote_slave_fault(), update_topic_fault(), slow_disk_fault(),         lying_disk_fault()};
}

}  // namespace ferry::sim::scenario
