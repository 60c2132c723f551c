#include "sim/check/checkers.h"

namespace ferry::sim::check {

std::vector<Verdict> run_all_checks(const History& h) {
  std::vector<Verdict> out = {check_lost_acked(h), check_unexpected(h), check_duplicates(h), check_key_order(h),
                              check_queue_offsets(h), check_committed_offsets(h), check_orderly_exclusive(h)};
  const CheckSettings& s = h.settings;
  if (s.failover) out.push_back(check_failover(h, *s.failover));
  if (s.route_staleness) out.push_back(check_route_staleness(h, *s.route_staleness));
  if (s.latency_backoff) out.push_back(check_latency_backoff(h, *s.latency_backoff));
  if (s.offset_persistence) out.push_back(check_offset_persistence(h, *s.offset_persistence));
  if (s.send_outcomes) out.push_back(check_send_outcomes(h, *s.send_outcomes));
  // Always, last: the nodes' error-level log lines against the scenario's expected_errors.
  out.push_back(check_error_logs(h));
  return out;
}

bool all_passed(const std::vector<Verdict>& verdicts) {
  for (const Verdict& v : verdicts) {
    if (!v.passed) return false;
  }
  return true;
}

}  // namespace ferry::sim::check
