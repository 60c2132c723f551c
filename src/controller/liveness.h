// Liveness: which brokers a controller has heard from lately (RocketMQ 5's
// DefaultBrokerHeartbeatManager). Every broker heart-beats every controller (BROKER_HEARTBEAT 904,
// every brokerHeartbeatInterval) with its epoch, max and confirm offsets, election priority and
// how long it may stay silent (controllerHeartBeatTimeoutMills, 10 s). Each controller keeps its
// own view; it is not replicated (a new leader learns it from the next heartbeats).
//
// A later heartbeat always refreshes the time, timeout and priority; the epoch and offsets move
// only forward (a higher epoch, or the same epoch with a higher max offset), as RocketMQ does.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "controller/replicas_info.h"
#include "runtime/clock.h"
#include "runtime/time.h"

namespace ferry::controller {

struct BrokerLiveInfo {
  std::string cluster;
  std::string name;
  ReplicaId id = kNoReplica;
  std::string address;
  Epoch epoch = -1;
  std::int64_t max_offset = -1;
  std::int64_t confirm_offset = -1;
  std::int32_t election_priority = std::numeric_limits<std::int32_t>::max();
  MonoTime last_heartbeat{};
  Duration timeout{};
};

// What decisions need to know: is (group, replica) alive, and its latest heartbeat.
class Liveness {
 public:
  virtual ~Liveness() = default;
  // The replica's latest heartbeat when it is alive now, else null.
  virtual const BrokerLiveInfo* alive(const std::string& name, ReplicaId id) const = 0;
};

// Alive means: last heartbeat + its timeout >= the clock's now. `clock` must outlive the table.
class HeartbeatTable final : public Liveness {
 public:
  explicit HeartbeatTable(const Clock& clock) : clock_(clock) {}

  // Records a heartbeat received now (`info.last_heartbeat` is ignored).
  void beat(BrokerLiveInfo info);
  // Drops every broker silent for longer than its timeout; returns them in key order.
  std::vector<BrokerLiveInfo> expire();
  // Forgets a broker (its connection closed, or an operator cleaned it).
  void forget(const std::string& name, ReplicaId id);

  const BrokerLiveInfo* alive(const std::string& name, ReplicaId id) const override;
  // The latest heartbeat of the replica, alive or not (until expire() drops it).
  const BrokerLiveInfo* last(const std::string& name, ReplicaId id) const;
  const std::map<std::pair<std::string, ReplicaId>, BrokerLiveInfo>& all() const { return table_; }

 private:
  const Clock& clock_;
  std::map<std::pair<std::string, ReplicaId>, BrokerLiveInfo> table_;
};

}  // namespace ferry::controller
