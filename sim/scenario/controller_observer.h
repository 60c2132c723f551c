// ControllerObserver: a Watch observer (watch.h) for controller mode (docs/controller.md). At each
// look it records into the History
//  * what every running controller's replicated state says of each broker group (master,
//    masterEpoch, SyncStateSet, syncStateSetEpoch) — a ControllerViewRecord when it changed;
//  * what every running broker of a controller-mode group holds — the last epoch of its epoch
//    file and its SEND_OK counts by masterEpoch (BrokerStats::acked_by_epoch) — a
//    BrokerEpochRecord when it changed;
//  * a start event of a controller whose Raft restarted from its files after a failed log sync
//    (RaftNode::restarts grew): its state is replayed from the log, a new life.
// The checkers controller-history and one-master-per-epoch judge them; the failover check reads
// the elections. Read-only: it changes nothing in the World. A node that is down is skipped; what
// it holds once it runs again is compared with what was recorded last.
//
// Bounded: one entry per (controller, group) and per broker; the controllers' groups are those of
// the spec's brokers (the controllers refuse more than their own bound).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>

#include "sim/cluster/cluster.h"
#include "sim/history/history.h"

namespace ferry::sim::scenario {

class ControllerObserver {
 public:
  ControllerObserver(cluster::Cluster& c, std::shared_ptr<sim::History> history);

  void look(MonoTime now);

 private:
  void look_at_controllers(MonoTime now);
  void look_at_brokers(MonoTime now);

  cluster::Cluster& cluster_;
  std::shared_ptr<sim::History> history_;
  std::map<std::string, std::string> broker_by_addr_;  // "127.0.0.12:10911" -> "broker-a"
  std::map<std::pair<std::string, std::string>, sim::ControllerViewRecord> last_view_;  // (controller, group)
  std::map<std::string, sim::BrokerEpochRecord> last_epochs_;                          // by broker node
  std::map<std::string, std::uint64_t> raft_restarts_;  // by controller node: RaftNode::restarts seen
};

}  // namespace ferry::sim::scenario
