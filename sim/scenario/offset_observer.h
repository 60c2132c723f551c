// OffsetObserver: a Watch observer (watch.h) that records the consumer offsets the brokers have
// committed. At each look it reads the ConsumerOffsetManager table of every running master broker
// (a slave only copies its master's) and appends a sim::CommitRecord to the History for each
// (broker node, group, queue) whose offset differs from the one it recorded last (or is new).
// It also reads the first offset of every queue of the scenario's topics on those masters and
// appends a sim::QueueFloorRecord each time one rises above the highest recorded (cleanup
// removed the messages below it).
// Read-only: it changes nothing in the World. A broker that is down is skipped; its offsets are
// looked at again once it runs (what it reloaded shows as a change if it differs).
//
//   Watch w(250ms);
//   OffsetObserver offsets(cluster, history);
//   w.add([&](MonoTime now) { offsets.look(now); });
//
// Bounded by the brokers' own tables (ConsumerOffsetManager::kTopicGroupPairsMax).
#pragma once

#include <map>
#include <memory>
#include <string>
#include <tuple>

#include "sim/cluster/cluster.h"
#include "sim/history/history.h"

namespace ferry::sim::scenario {

class OffsetObserver {
 public:
  OffsetObserver(cluster::Cluster& c, std::shared_ptr<sim::History> history) : cluster_(c), history_(std::move(history)) {}

  void look(MonoTime now);

 private:
  void look_at_floors(MonoTime now, broker::Broker& b, const std::string& group_name);

  cluster::Cluster& cluster_;
  std::shared_ptr<sim::History> history_;
  // (broker node, "topic@group", queue id) -> the offset recorded last.
  std::map<std::tuple<std::string, std::string, std::int32_t>, std::int64_t> last_;
  std::map<MessageQueue, QueueOffset> floors_;  // the highest first offset recorded, by queue
};

}  // namespace ferry::sim::scenario
