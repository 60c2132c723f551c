// Checker "send_outcomes" (a named check: History::settings.named["send_outcomes"]): what the producers
// were told, counted, for scenarios whose promise is about the answers rather than the messages.
//   - Every send's final outcome (after the client's own retries): ok (SEND_OK), not_durable
//     (FLUSH_DISK_TIMEOUT and the other "stored, but" statuses), failed (an error reply: not
//     stored), unknown (a timeout or a broken connection). A broker that refuses cleanly (14
//     SERVICE_NOT_AVAILABLE, retried elsewhere) costs no failed or unknown send; one that hangs
//     does. Bounds: failed_max, unknown_max (-1: counted only), not_durable_min (the scenario
//     must reach the "stored, but not durable" answer it is about).
//   - slow_ok: SEND_OK sends that took longer than slow_ms from the call to the answer, and the
//     slowest one (slowest_ok_ms). Bound: slow_ok_min (a slow-but-ok case must happen).
//   - With a group: its fault window, from the first fault or crash Event naming its master's
//     node to the heal or start Event that ends it. ok_on_group_in_fault counts the SEND_OKs the
//     group gave in it, last_ok_in_fault_ms is from the fault to the last of them, and
//     writes_resume_ms from the end of the window to the first SEND_OK of a send started after
//     it. Bound: writes_resume_within_ms (0: measured only; set, a window that never ends or no
//     write after it fails: no evidence).
#pragma once

#include "sim/check/registry.h"
#include "sim/check/verdict.h"
#include "sim/history/history.h"

namespace ferry::sim::check {

// The bounds: the producers' answers counted (-1: counted only), slow acknowledgements, and,
// with a group, how long after its fault ends it takes writes again (0 ms: measured only).
struct SendOutcomesBounds {
  std::int64_t failed_max = -1;
  std::int64_t unknown_max = -1;
  std::int64_t not_durable_min = 0;
  std::int64_t slow_ms = 1'000;
  std::int64_t slow_ok_min = 0;
  std::string group;  // "" = no group figures
  std::int64_t writes_resume_within_ms = 0;
};

Verdict check_send_outcomes(const History& h, const SendOutcomesBounds& bounds);

// The registry's entry (registry.h): a named check, [checks.send_outcomes] in a scenario file.
CheckerSpec send_outcomes_checker();

}  // namespace ferry::sim::check
