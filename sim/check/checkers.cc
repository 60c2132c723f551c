#include "sim/check/checkers.h"

namespace ferry::sim::check {

std::vector<Verdict> run_all_checks(const History& h) {
  return {check_lost_acked(h), check_unexpected(h), check_duplicates(h), check_key_order(h), check_queue_offsets(h),
          check_committed_offsets(h)};
}

bool all_passed(const std::vector<Verdict>& verdicts) {
  for (const Verdict& v : verdicts) {
    if (!v.passed) return false;
  }
  return true;
}

}  // namespace ferry::sim::check
