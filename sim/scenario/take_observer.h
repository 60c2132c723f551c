// TakeObserver: a Watch observer (watch.h) that records, into History::takes, each queue a push
// consumer takes: at every look, every ProcessQueue of every running push consumer node that it
// has not seen yet, with the offset it starts reading at (ProcessQueue::start_offset). It also
// records a rebalance event of a consumer (push or lite pull) whenever one of its pulls was
// answered OFFSET_ILLEGAL since the last look: the broker moved the queue's offset, maybe back (a
// promoted slave whose queue is shorter than what the old master had served), and the consumer
// commits that (committed-offsets reads the event as the explanation). The
// lost-acked checker and the broadcast liveness requirement read a broadcast consumer's first
// take of a queue as where it started (lost_acked.h, QueueStart): a consumer whose first take
// found the NameServer empty for a while starts later than its own start, and owes only what
// came after.
//
// Only reads (the World is not changed). A ProcessQueue made and dropped between two looks is
// not seen; its consumer's deliveries then say where it started. Bounded by the consumers'
// queue tables: it keeps one weak pointer per (node, queue).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>

#include "client/process_queue.h"
#include "sim/cluster/workload.h"
#include "sim/cluster/cluster.h"
#include "sim/history/history.h"

namespace ferry::sim::scenario {

// What TakeObserver does for one consumer app: the simulated runner calls it for every node, the
// real one (sim/real) on each client's own thread, one at a time. Writes hold the History's lock.
class TakeLog {
 public:
  explicit TakeLog(std::shared_ptr<sim::History> history) : history_(std::move(history)) {}
  // Looks at the app of node `name` (any workload app: only consumers have takes).
  void look(MonoTime now, const std::string& name, cluster::ClientApp& app);

 private:
  void note_moved(MonoTime now, const std::string& name, std::uint64_t moved);

  std::shared_ptr<sim::History> history_;
  std::map<std::pair<std::string, MessageQueue>, std::weak_ptr<const client::ProcessQueue>> seen_;
  std::map<std::string, std::uint64_t> moved_;  // by node: OFFSET_ILLEGAL answers seen so far
};

class TakeObserver {
 public:
  // `clients`: the client nodes by name, as the runner adds them (read at every look).
  TakeObserver(cluster::Cluster& c, const std::map<std::string, NodeId>& clients, std::shared_ptr<sim::History> history)
      : cluster_(c), clients_(clients), log_(std::move(history)) {}

  void look(MonoTime now);

 private:
  cluster::Cluster& cluster_;
  const std::map<std::string, NodeId>& clients_;
  TakeLog log_;
};

}  // namespace ferry::sim::scenario
