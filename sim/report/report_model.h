// ReportModel: everything one report page shows, as plain data, from a scenario's run
// (model_from_run: `mqsim run --report`) or from a History alone (model_from_history:
// `mqsim check --report`, which has no scenario: the lanes come from the history's records, the
// fault windows from its events). html_report.h renders it.
//
// Deterministic and free of the machine: no wall-clock time and no paths but `source`, which the
// caller passes as the user gave it. Bounded like the Timeline (timeline.h); the fault schedule
// list holds at most kScheduleLinesMax lines (schedule_dropped counts the rest); the failure and
// the liveness result are cut to kLongTextBytesMax bytes, other texts to kTextBytesMax.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/check/verdict.h"
#include "sim/history/history.h"
#include "sim/report/timeline.h"
#include "sim/scenario/runner.h"
#include "sim/scenario/scenario.h"

namespace ferry::sim::report {

inline constexpr std::size_t kScheduleLinesMax = 60;
inline constexpr std::size_t kLongTextBytesMax = 4000;  // the failure and the liveness result

struct ReportModel {
  std::string name;    // the scenario's name, or the history file's base name
  std::string story;   // "" for a history
  std::string source;  // the scenario (or history) file as given
  std::optional<std::uint64_t> seed;
  std::optional<std::uint64_t> trace_hash;
  std::optional<std::int64_t> simulated_ms;  // virtual time of the whole run, boot included
  // A run on real processes (`mqsim run --real`): its times are real, it has no trace hash, and
  // simulated_ms is the real time it took.
  bool real = false;
  bool passed = false;
  std::string failure;   // the first reason it did not pass, "" when it passed
  std::string liveness;  // the liveness result, "" when there is none
  std::vector<check::Verdict> verdicts;
  std::size_t sends = 0;
  std::size_t deliveries = 0;
  std::size_t events = 0;
  std::string origin;  // what x = 0 of the timeline is, in words
  std::vector<std::string> schedule;  // the fault schedule, one step a line ("20s kill broker-a")
  std::size_t schedule_dropped = 0;
  Timeline timeline{0};
};

// `source`: the scenario file as the user named it. The run may have failed to be carried out
// (run.error): the page then says why, with what the history holds.
ReportModel model_from_run(const scenario::Scenario& s, const scenario::RunOutcome& run, std::string_view source);

// `verdicts`: what the checkers said of `h` (check::run_all_checks); passed when all passed.
ReportModel model_from_history(const sim::History& h, std::string_view source, std::vector<check::Verdict> verdicts);

}  // namespace ferry::sim::report
