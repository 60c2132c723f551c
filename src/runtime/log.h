// Node loggers: spdlog, every line tagged with the node's name and, in simulation, the node's
// virtual time ("[broker-a 12.345678s]"), so a simulated run's log reads as one timeline.
#pragma once

#include <spdlog/logger.h>
#include <spdlog/sinks/sink.h>

#include <memory>
#include <string>
#include <vector>

namespace ferry {

class Clock;

// A logger for one node writing to the process-wide sinks (stderr unless replaced). When
// `virtual_clock` is given (simulation), each line shows that clock's time instead of the real
// time. The level is the process default (see set_default_log_level).
//
// The sinks are shared, and spdlog gives a sink one formatter, so the time is not held by the
// formatter: lines find their node's clock by the logger's name in a process-wide table that
// make_node_logger fills (the latest node of a name wins) and forget_node_clock empties when the
// node goes. A line of a node whose clock is gone shows "?" for the time, never a stale clock.
std::shared_ptr<spdlog::logger> make_node_logger(const std::string& node, const Clock* virtual_clock);
// Drops `node`'s clock from the table when it is still `virtual_clock` (the node's destructor).
void forget_node_clock(const std::string& node, const Clock* virtual_clock);

// Process-wide defaults, for programs and tests (not component code). The initial level comes
// from the FERRY_LOG environment variable (trace|debug|info|warn|error|off), default "info".
void set_default_log_level(spdlog::level::level_enum level);
spdlog::level::level_enum default_log_level();
// Replaces the sinks new node loggers write to (e.g. console + rotating file in the daemons).
// Loggers made before keep the sinks they were made with.
void set_default_log_sinks(std::vector<spdlog::sink_ptr> sinks);
// New node loggers flush their sinks after every line at or above `level` (default off: the
// sinks' own buffering). The daemons pass trace, so their log file holds every line at once: a
// `tail -f` shows it and a crash or a kill -9 loses none.
void set_default_log_flush_level(spdlog::level::level_enum level);
// The sinks new node loggers write to now (shared with them): a caller that replaces them for a
// while (the simulator's per-run log capture) puts these back after.
std::vector<spdlog::sink_ptr> default_log_sinks();

}  // namespace ferry
