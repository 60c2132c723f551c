// AckedProgress: "which acknowledged sends has this audience not consumed yet", asked again and
// again while a run goes on (the liveness requirements all_acked_consumed / all_acked_consumed_by
// in sim/cluster/workload.h are asked after every event). It gives the same answer as
// acked_not_consumed / acked_not_consumed_by (owed.h) on the History as it stands, but
// carries what it learnt between calls instead of scanning the whole History each time: the
// consumptions (and takes) it has seen, and the prefix of sends that are settled for good
// (completed, and either consumed or never owed).
//
// Assumes what the runner guarantees: records are only appended (a send's record is completed in
// place once), and a group's subscriptions and a consumer's ConsumerInfo do not change after the
// first call (every client has started before the liveness phase).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "sim/history/history.h"
#include "sim/history/owed.h"
#include "sim/history/selection.h"

namespace ferry::sim {

class AckedProgress {
 public:
  // A clustering group: its subscribed topics' acknowledged sends, consumed by any member.
  static AckedProgress for_group(std::shared_ptr<const History> h, std::string group);
  // A broadcast consumer: the sends acked_not_consumed_by() says it owes, consumed by itself.
  static AckedProgress for_consumer(std::shared_ptr<const History> h, std::string consumer);

  // How many acknowledged sends are owed and not consumed, and the first of them (nullptr: none).
  std::pair<std::size_t, const SendRecord*> missing();

 private:
  AckedProgress(std::shared_ptr<const History> h, std::string group, std::string consumer)
      : h_(std::move(h)), group_(std::move(group)), consumer_(std::move(consumer)), selection_(*h_) {}
  void take_new_records();
  // Not owed, and never will be: not acknowledged, expired (cleanup removed it first), not of
  // the audience's topics, sent before its first start.
  bool never_owed(const SendRecord& s) const;
  // Owed now: not never_owed, and not before where a broadcast consumer started its queue (which
  // a later take may move back: not settled for good).
  bool owed(const SendRecord& s) const;
  // Before where a broadcast consumer's first take started its queue: a take is never overridden,
  // so this is for good too.
  bool before_take(const SendRecord& s) const;

  std::shared_ptr<const History> h_;
  std::string group_;     // for_group
  std::string consumer_;  // for_consumer
  Selection selection_;   // over *h_ (which does not move): SQL92 subscriptions owe what they select
  std::size_t consumes_seen_ = 0;
  std::size_t takes_seen_ = 0;
  std::size_t floors_seen_ = 0;
  QueueFloors floors_;
  std::size_t settled_ = 0;  // every send before it is complete and consumed or never owed
  std::set<std::pair<std::string, std::uint64_t>> consumed_;
  std::map<MessageQueue, QueueStart> starts_;  // for_consumer: where it started each queue (owed.h)
};

}  // namespace ferry::sim
