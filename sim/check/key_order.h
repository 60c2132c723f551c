// Checker (d): per-key order on ordered topics. For each producer and key, the acknowledged
// ordered sends (SendRecord::ordered, sent one at a time, so sequence order is store order) must
// appear in each group's consumption as a subsequence in order: the first delivery of each comes
// after the first delivery of every earlier one. Redelivery may repeat (a replay from an older
// offset); a message consumed for the first time after a later one of its key is a reorder.
// Order across producers sharing a key is not promised (RocketMQ orders per queue, and two
// producers' sends interleave as they arrive). The promise needs an orderly consumer
// (MessageListenerOrderly): a concurrent one may redeliver through its retry topic out of order,
// so a workload marks its sends ordered only when its consumers consume orderly.
//
// A key's order holds while its queue stays put. When the producer's route of the topic changes
// (a broker group leaves or returns, queues are added), the key hashes to another queue, and what
// waits in the old queue may be consumed after what the new one took: RocketMQ's ordered messages
// promise no more. So a reorder of two messages stored in different queues, with a change of the
// producer's route (History::routes) between their sends, is excused and counted
// (moved_reorders); one in the same queue, or across queues with no route change between (a
// selector that ignores the key), is a violation.
//
// Judged per group, and per consumer in broadcast groups (History::audience). settings.per_key_order:
// unset judges ordered sends; true judges every acknowledged send; false counts, never fails.
// Figures: ordered_acked, keys, reorders (violations), moved_reorders (excused).
#pragma once

#include "sim/check/registry.h"
#include "sim/check/verdict.h"
#include "sim/history/history.h"

namespace ferry::sim::check {

Verdict check_key_order(const History& h);

// The registry's entry (registry.h): runs on every History.
CheckerSpec key_order_checker();

}  // namespace ferry::sim::check
