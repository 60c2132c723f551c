// LogCapture: the log lines of one scenario run, captured whatever the printed level (RAII; the
// runner, sim/scenario/runner.h, owns one per run).
//
// While it lives, node loggers made meanwhile (every node of the run's Cluster) write to two
// sinks instead of the process's default ones:
//   - the previous default sinks, behind a filter at the previous default level: what is printed
//     does not change (FERRY_LOG, `mqsim run --log-level`);
//   - the run's capture sink, which takes every line at info and above into a RecentLogs ring and
//     every error and critical line into the History (History::record_error_log, judged by the
//     error-logs checker, sim/check/error_logs.h).
// So that the capture sink sees those lines even under `--log-level off`, the default logger
// level is lowered to at most info for the run. Lines are timed by the World (attach()), not by
// the node's own (skewed) clock; lines logged before attach() (while the Cluster is being made)
// are timed 0 and handed to the History at attach(). Capturing reads the World's time and writes
// only to the History and the ring: it never changes a run's trace hash.
//
// The destructor puts the previous default sinks and level back, however the run ends (an early
// return, an exception), and detaches the capture sink: node loggers that outlive the run (the
// Cluster a RunOutcome keeps) still print through the filter, but capture nothing more and never
// touch the World or the History again.
//
// Single-threaded: one capture at a time in a process, on the World's thread. Not copyable.
#pragma once

#include <memory>
#include <vector>

#include <spdlog/common.h>
#include <spdlog/sinks/sink.h>

#include "sim/check/history.h"
#include "sim/scenario/recent_logs.h"
#include "sim/world.h"

namespace ferry::sim::scenario {

class CaptureSink;

class LogCapture {
 public:
  // Installs the run's sinks and level (see above); `ring_capacity` bounds the recent lines.
  explicit LogCapture(std::size_t ring_capacity = kRecentLogsMax);
  ~LogCapture();
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;

  // From now on lines are timed by `world`'s clock and error lines go to `history` (those
  // captured before are recorded into it now). Once per capture; both must outlive it or
  // finish(), whichever comes first.
  void attach(const World& world, std::shared_ptr<check::History> history);
  // Ends the capture early (the destructor would): nothing more is captured. Returns the ring
  // of recent lines; a second call returns an empty ring.
  RecentLogs finish();

 private:
  std::vector<spdlog::sink_ptr> previous_sinks_;
  spdlog::level::level_enum previous_level_;
  std::shared_ptr<CaptureSink> sink_;
};

}  // namespace ferry::sim::scenario
