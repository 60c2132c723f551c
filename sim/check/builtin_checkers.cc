// The built-in checkers, one line each, in the order of their verdicts: the ones that judge every
// History, then the named checks a scenario may ask for, then error-logs last.
#include "sim/check/committed_offsets.h"
#include "sim/check/controller_history.h"
#include "sim/check/duplicates.h"
#include "sim/check/error_logs.h"
#include "sim/check/failover.h"
#include "sim/check/key_order.h"
#include "sim/check/latency_backoff.h"
#include "sim/check/lost_acked.h"
#include "sim/check/offset_persistence.h"
#include "sim/check/one_master_per_epoch.h"
#include "sim/check/orderly_exclusive.h"
#include "sim/check/pop_delivery.h"
#include "sim/check/pop_fifo.h"
#include "sim/check/queue_offsets.h"
#include "sim/check/registry.h"
#include "sim/check/metric_bound.h"
#include "sim/check/route_staleness.h"
#include "sim/check/request_reply.h"
#include "sim/check/selection.h"
#include "sim/check/send_outcomes.h"
#include "sim/check/timer_delivery.h"
#include "sim/check/store_prefix.h"
#include "sim/check/transactions.h"
#include "sim/check/unexpected.h"

namespace ferry::sim::check {

std::vector<CheckerSpec> builtin_checkers() {
  std::vector<CheckerSpec> out;
  out.push_back(lost_acked_checker());
  out.push_back(unexpected_checker());
  out.push_back(duplicates_checker());
  out.push_back(transactions_checker());
  out.push_back(selection_checker());
  out.push_back(request_reply_checker());
  out.push_back(key_order_checker());
  out.push_back(queue_offsets_checker());
  out.push_back(committed_offsets_checker());
  out.push_back(orderly_exclusive_checker());
  out.push_back(pop_delivery_checker());
  out.push_back(pop_fifo_checker());
  out.push_back(store_prefix_checker());
  out.push_back(controller_history_checker());
  out.push_back(one_master_per_epoch_checker());
  out.push_back(failover_checker());
  out.push_back(route_staleness_checker());
  out.push_back(latency_backoff_checker());
  out.push_back(offset_persistence_checker());
  out.push_back(send_outcomes_checker());
  out.push_back(metric_bound_checker());
  out.push_back(timer_delivery_checker());
  out.push_back(error_logs_checker());
  return out;
}

}  // namespace ferry::sim::check
