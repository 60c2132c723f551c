// Checker: transactional messages (docs/transactions.md) end as their transaction did. A message
// whose transaction rolled back (SendRecord::fate rollback: the producer's verdict, or its
// group's answer to the broker's check, or a half message not acknowledged SEND_OK) is never
// delivered to anyone; a violation names the message, how it was rolled back, and the consumer
// that got it. That every committed one is delivered is lost-acked's judgement (SendRecord::owed).
// Figures: transactions, committed, rolled_back, by_check (the local transaction answered
// UNKNOW), no_verdict (the producer died before its verdict), resolved_by_check (committed ones
// delivered whose verdict the check gave), check_resolve_max_ms (the longest of those from the
// half message's acknowledgement to its first delivery), verdict_to_delivery_max_ms (the longest
// from a producer's COMMIT to the first delivery), undelivered_commits.
#pragma once

#include "sim/check/registry.h"
#include "sim/check/verdict.h"
#include "sim/history/history.h"

namespace ferry::sim::check {

Verdict check_transactions(const History& h);

// The registry's entry (registry.h): runs on every History (passes with no transactional send).
CheckerSpec transactions_checker();

}  // namespace ferry::sim::check
