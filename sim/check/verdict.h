// What a checker says about a History: its name, whether the guarantee held, the figures it
// measured (name -> number, printed in name order), how many violations it found and the text of
// the first one (which names the message as producer#seq, its queue and offset), and, when the
// checker knows it, the virtual time of that first violation (mqsim prints the nodes' log lines
// around it).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "runtime/time.h"

namespace ferry::sim::check {

struct Verdict {
  std::string name;
  bool passed = true;
  // Judged as figures only (History::settings.figures_only): passed whatever the violations.
  bool figures_only = false;
  // Not judged, and why ("reads store_restarts, which this run did not observe": History::
  // unobserved); `passed` stays true, no figures.
  std::string not_judged;
  std::map<std::string, std::int64_t> figures;
  std::int64_t violations = 0;
  std::string first_violation;  // empty when there is none
  // When the first violation happened (an ack, a delivery, a fault event); unset when the checker
  // cannot tie it to a time (a bound measured over the whole run) or there is none.
  std::optional<MonoTime> first_violation_at;

  // Counts one violation; keeps the text of the first. Does not decide `passed` (a tolerant
  // checker may report violations as figures and pass).
  void violation(std::string text);
  // The same, and keeps `at` as first_violation_at when this is the first.
  void violation(std::string text, MonoTime at);
  // "lost-acked: PASS acked=300 lost=0" or "... FAIL ... first: producer-0#17 ..."; a check
  // judged as figures only says "PASS (figures only)", one not judged "NOT JUDGED (why)".
  std::string to_line() const;
};

}  // namespace ferry::sim::check
