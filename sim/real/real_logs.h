// The error-level log lines of a real run, for History::error_logs (the error-logs checker judges
// them as it does a simulated run's): the client apps' and the observer's through a sink on their
// loggers, the daemons' read back from their log files at the end of the run.
#pragma once

#include <memory>
#include <string>

#include <spdlog/sinks/sink.h>

#include "sim/history/history.h"

namespace ferry::sim::real {

// A sink that records every error and critical line into `history` (time: real_now()).
spdlog::sink_ptr history_error_sink(std::shared_ptr<sim::History> history);

// Records the error and critical lines of daemon log `file` (spdlog's "[date time.ms] [node]
// [level] text" lines, local time) into `history`, timed on the steady clock by their distance
// from now. Lines of other shapes are skipped. Returns how many were recorded.
std::size_t record_daemon_errors(const std::string& file, sim::History& history);

}  // namespace ferry::sim::real
