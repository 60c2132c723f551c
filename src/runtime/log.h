// Node loggers: spdlog, every line tagged with the node's name and, in simulation, the node's
// virtual time ("[broker-a] ... [12.345678s]"), so a simulated run's log reads as one timeline.
//
// Nothing here is shared between runtimes at run time: each runtime makes its node loggers from
// the LogSettings it owns (the World for all its nodes, an AsioRuntime for its one), and a line's
// time is stamped by the logger from its own node's clock — no table of clocks, no formatter that
// looks a node up. Two simulated worlds can run in two threads of one process, each with its own
// sinks. What is process-wide is only the defaults a runtime starts from when it is given no
// settings (default_log_settings), for programs and tests.
#pragma once

#include <spdlog/logger.h>
#include <spdlog/sinks/sink.h>

#include <memory>
#include <string>
#include <vector>

namespace ferry {

class Clock;

// Where a runtime's node loggers write and what they keep. The sinks may be shared with other
// runtimes (spdlog's _mt sinks lock); a logger keeps the settings it was made with.
struct LogSettings {
  std::vector<spdlog::sink_ptr> sinks;
  spdlog::level::level_enum level = spdlog::level::info;
  // Flush the sinks after every line at or above this level (off: the sinks' own buffering).
  // The daemons pass trace, so their log file holds every line at once: a `tail -f` shows it and
  // a crash or a kill -9 loses none.
  spdlog::level::level_enum flush_level = spdlog::level::off;
};

// A logger for one node writing to `settings`' sinks at its level. With a `virtual_clock`
// (simulation) it is a ClockedLogger: each line shows that clock's time, not the real time.
// Without, lines show the real date and time. `virtual_clock` must outlive the logger or be
// forgotten first (ClockedLogger::forget_clock).
std::shared_ptr<spdlog::logger> make_node_logger(const std::string& node, const Clock* virtual_clock,
                                                 const LogSettings& settings);

// A simulated node's logger: stamps each line with its node's clock (read on the logging thread,
// when the line is logged), and every line it hands its sinks is formatted "[T] [node] [level]
// text" with T in seconds and microseconds ("12.345678s"), or "?" once the clock is forgotten.
class ClockedLogger final : public spdlog::logger {
 public:
  // At settings.level, flushing at settings.flush_level. `clock` must outlive the logger or be
  // forgotten first.
  ClockedLogger(std::string node, const Clock* clock, const LogSettings& settings);
  // The node's clock is going away: lines logged after this show "?" for the time, never a dead
  // clock's. The logger's thread only.
  void forget_clock() { clock_ = nullptr; }

 protected:
  void sink_it_(const spdlog::details::log_msg& msg) override;

 private:
  const Clock* clock_;
};

// Process-wide defaults, for programs and tests (not component code): what a runtime uses when it
// is given no LogSettings. The initial level comes from the FERRY_LOG environment variable
// (trace|debug|info|warn|error|off), default "info"; the initial sink is stderr.
LogSettings default_log_settings();
void set_default_log_level(spdlog::level::level_enum level);
spdlog::level::level_enum default_log_level();
// Replaces the sinks of the defaults (e.g. console + rotating file in the daemons).
void set_default_log_sinks(std::vector<spdlog::sink_ptr> sinks);
void set_default_log_flush_level(spdlog::level::level_enum level);
std::vector<spdlog::sink_ptr> default_log_sinks();

}  // namespace ferry
