// Checker (a): acknowledged messages lost. Every send acknowledged with SEND_OK must be consumed,
// intact, by every clustering group that consumes its topic (a group consumes a topic it
// subscribed to, History::subscriptions, or that the history shows it consumed something of),
// and by every broadcast consumer (History::consumers) that stayed to the end: each of those must
// have received every acknowledged send of its topic that was sent after its first start and
// either stored at or after where it started reading that queue or sent after it took the queue
// (QueueStart below; a consumer starting at the last offset skips what came before). Strict (settings.lost_strict:
// SYNC_FLUSH + SYNC_MASTER) fails on any loss; tolerant passes and reports the loss as the
// figure `lost` (async modes).
// Figures: acked, lost, groups, broadcast_consumers. A violation names producer#seq, where it was
// stored and the group (or the broadcast consumer).
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sim/check/history.h"
#include "sim/check/verdict.h"

namespace ferry::sim::check {

Verdict check_lost_acked(const History& h);

// The acknowledged sends `group` has not consumed intact (in send order), of every topic when
// `topics` is empty, else of those topics. The liveness requirement all_acked_consumed
// (sim/cluster/workload.h) waits for this to be empty.
std::vector<const SendRecord*> acked_not_consumed(const History& h, const std::string& group, const std::set<std::string>& topics);

// Where a broadcast consumer started reading a queue: the offset of its first take
// (History::takes) and when it was seen; without a take (lite pull consumers, older histories),
// the first offset it consumed there. A take overrides a start learnt from a consumption (the
// observer may see the take after the first delivery).
struct QueueStart {
  QueueOffset offset;
  std::optional<MonoTime> taken_at;
};
// Records what `r` says about where `consumer` started (a TakeRecord or a ConsumeRecord of its).
void learn_start(std::map<MessageQueue, QueueStart>& starts, const TakeRecord& r);
void learn_start(std::map<MessageQueue, QueueStart>& starts, const ConsumeRecord& r);
// True when acknowledged send `s` lies before where the consumer started its queue: stored below
// the start offset and sent before the take (a message sent after the take is owed wherever it
// is stored).
bool before_start(const std::map<MessageQueue, QueueStart>& starts, const SendRecord& s);

// The acknowledged sends broadcast consumer `consumer` (a key of History::consumers) should have
// received and has not (the rule above), in send order; empty for an unknown consumer. The
// liveness requirement all_acked_consumed_by (sim/cluster/workload.h) waits for this to be empty.
std::vector<const SendRecord*> acked_not_consumed_by(const History& h, const std::string& consumer);

}  // namespace ferry::sim::check
