// What a History says is owed: the acknowledged sends a consumer group, or a broadcast consumer,
// should have consumed and has not. The lost-acked checker (sim/check/lost_acked.h) judges a
// finished run by them; the liveness phase (sim/cluster/workload.h, through acked_progress.h)
// waits for them to be empty.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sim/history/history.h"

namespace ferry::sim {

// The highest first offset each queue's master had (History::queue_floors): a message below it
// that an audience had not consumed is expired (cleanup removed it), not owed.
class QueueFloors {
 public:
  // Takes the records from `seen` on (an incremental caller passes what it took so far).
  void take(const std::vector<QueueFloorRecord>& records, std::size_t& seen);
  bool expired(const SendRecord& s) const;

 private:
  std::map<MessageQueue, QueueOffset> floor_;
};

// The acknowledged sends `group` has not consumed intact and were not expired (in send order), of
// every topic when `topics` is empty, else of those topics. The liveness requirement
// all_acked_consumed (sim/cluster/workload.h) waits for this to be empty.
std::vector<const SendRecord*> acked_not_consumed(const History& h, const std::string& group,
                                                  const std::set<std::string>& topics);

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
// received and has not (the rule above), and were not expired, in send order; empty for an
// unknown consumer. The
// liveness requirement all_acked_consumed_by (sim/cluster/workload.h) waits for this to be empty.
std::vector<const SendRecord*> acked_not_consumed_by(const History& h, const std::string& consumer);

// The acknowledged sends not consumed by `group` (or broadcast `consumer`) that cleanup removed
// first: the figure lost-acked reports as `expired`.
std::size_t expired_not_consumed(const History& h, const std::string& group, const std::set<std::string>& topics);

}  // namespace ferry::sim
