// Checker (d): per-key order on ordered topics. For each producer and key, the acknowledged
// ordered sends (SendRecord::ordered, sent one at a time, so sequence order is store order) must
// appear in each group's consumption as a subsequence in order: the first delivery of each comes
// after the first delivery of every earlier one. Redelivery may repeat (a replay from an older
// offset); a message consumed for the first time after a later one of its key is a reorder.
// Order across producers sharing a key is not promised (RocketMQ orders per queue, and two
// producers' sends interleave as they arrive). The promise needs an orderly consumer
// (MessageListenerOrderly): a concurrent one may redeliver through its retry topic out of order,
// so a workload marks its sends ordered only when its consumers consume orderly.
// Judged per group, and per consumer in broadcast groups (History::audience). settings.per_key_order:
// unset judges ordered sends; true judges every acknowledged send; false counts, never fails.
// Figures: ordered_acked, keys, reorders.
#pragma once

#include "sim/check/history.h"
#include "sim/check/verdict.h"

namespace ferry::sim::check {

Verdict check_key_order(const History& h);

}  // namespace ferry::sim::check
