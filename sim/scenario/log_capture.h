// LogCapture: the log lines of one scenario run, captured whatever the printed level (RAII; the
// runner, sim/scenario/runner.h, owns one per run).
//
// It changes nothing of the process: the run's World is made with settings() (World's
// constructor, runtime/log.h), so its node loggers write to two sinks:
//   - what would be printed without the capture (`printing`: by default the process's default
//     sinks), behind a filter at its level: what is printed does not change (FERRY_LOG,
//     `mqsim run --log-level`);
//   - the run's capture sink, which takes every line at info and above into a RecentLogs ring and
//     every error and critical line into the History (History::record_error_log, judged by the
//     error-logs checker, sim/check/error_logs.h).
// So that the capture sink sees those lines even under `--log-level off`, the loggers' level is
// at most info. Lines are timed by the World (attach()), not by the node's own (skewed) clock;
// lines logged before attach() (while the Cluster is being made) are timed 0 and handed to the
// History at attach(). Capturing reads the World's time and writes only to the History and the
// ring: it never changes a run's trace hash.
//
// finish() (or the destructor, however the run ends) detaches the capture sink: node loggers
// that outlive the run (the Cluster a RunOutcome keeps) still print through the filter, but
// capture nothing more and never touch the World or the History again.
//
// One capture per run, on that run's World's thread; two runs in two threads each have their own.
// Not copyable.
#pragma once

#include <memory>
#include <vector>

#include "runtime/log.h"
#include "sim/history/history.h"
#include "sim/scenario/recent_logs.h"
#include "sim/world.h"

namespace ferry::sim::scenario {

class CaptureSink;

class LogCapture {
 public:
  // `ring_capacity` bounds the recent lines.
  explicit LogCapture(std::size_t ring_capacity = kRecentLogsMax);
  ~LogCapture();
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;

  // The settings the run's World is made with (see above): `printing`'s sinks behind a filter at
  // printing.level, plus the capture sink; level at most info; printing's flush level.
  LogSettings settings(const LogSettings& printing = default_log_settings()) const;

  // From now on lines are timed by `world`'s clock and error lines go to `history` (those
  // captured before are recorded into it now). Once per capture; both must outlive it or
  // finish(), whichever comes first.
  void attach(const World& world, std::shared_ptr<sim::History> history);
  // Ends the capture early (the destructor would): nothing more is captured. Returns the ring
  // of recent lines; a second call returns an empty ring.
  RecentLogs finish();

 private:
  std::shared_ptr<CaptureSink> sink_;
};

}  // namespace ferry::sim::scenario
