// Checker "failover" (a named check: History::settings.named["failover"]). The master of a broker group
// dies under load (the first crash Event whose target is the group's master node, named as the
// group: "broker-a"); later, perhaps, the operator promotes its slave (the first promote Event
// after it). Measured, from the History alone:
//   sends_resume_ms     from the death to the end of the first acknowledged send that started
//                       after it and was stored on another group (the producers moved on);
//   failed_sends        sends started between the death and the promotion (or the end) that
//                       did not end in SEND_OK;
//   backlog_at_death    messages the group acknowledged before its death that some subscribed
//                       group had not consumed yet (what only the slave can still serve);
//   consume_from_slave_ms  from the death to the first consumption of the group's messages
//                       before the promotion that a slave served (ConsumeRecord::pulled_from);
//   writes_after_promotion_ms  from the promotion to the end of the first acknowledged send
//                       that started after it and was stored on the group.
// In controller mode (the History has controller views of the group) the death is the first crash
// of the node the controllers had named master, whichever node that is; and also measured:
//   elected_ms          from the death to the first controller view naming another master;
//   group_writes_ms     from the death to the end of the first acknowledged send that started
//                       after it and was stored on the group itself (the new master took writes).
// A bound of 0 ms measures only; a set bound fails the run when the figure exceeds it or cannot
// be measured (no backlog to read from the slave is no evidence that the slave serves reads:
// the scenario must make consumers lag, so this fails rather than passing by accident).
// Lost acknowledged messages are lost-acked's to judge.
#pragma once

#include "sim/check/registry.h"
#include "sim/check/verdict.h"
#include "sim/history/history.h"

namespace ferry::sim::check {

// The bounds: the master of `group` dies under load (a bound of 0 ms: measured and printed, not
// judged).
struct FailoverBounds {
  std::string group;
  std::int64_t sends_resume_within_ms = 0;
  std::int64_t consume_from_slave_within_ms = 0;
  std::int64_t writes_after_promotion_within_ms = 0;
  std::int64_t elected_within_ms = 0;
  std::int64_t group_writes_within_ms = 0;
};

Verdict check_failover(const History& h, const FailoverBounds& bounds);

// The registry's entry (registry.h): a named check, [checks.failover] in a scenario file.
CheckerSpec failover_checker();

}  // namespace ferry::sim::check
