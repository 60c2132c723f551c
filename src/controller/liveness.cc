#include "controller/liveness.h"

namespace ferry::controller {

void HeartbeatTable::beat(BrokerLiveInfo info) {
  const MonoTime now = clock_.now();
  auto key = std::make_pair(info.name, info.id);
  auto it = table_.find(key);
  if (it == table_.end()) {
    info.last_heartbeat = now;
    table_.emplace(std::move(key), std::move(info));
    return;
  }
  BrokerLiveInfo& known = it->second;
  known.last_heartbeat = now;
  known.timeout = info.timeout;
  known.election_priority = info.election_priority;
  known.address = info.address;
  known.cluster = info.cluster;
  // Epoch and offsets only move forward: a reordered older heartbeat must not lower them.
  const bool newer = info.epoch > known.epoch ||
                     (info.epoch == known.epoch && info.max_offset > known.max_offset);
  if (newer) {
    known.epoch = info.epoch;
    known.max_offset = info.max_offset;
    known.confirm_offset = info.confirm_offset;
  }
}

std::vector<BrokerLiveInfo> HeartbeatTable::expire() {
  const MonoTime now = clock_.now();
  std::vector<BrokerLiveInfo> dropped;
  for (auto it = table_.begin(); it != table_.end();) {
    if (it->second.last_heartbeat + it->second.timeout < now) {
      dropped.push_back(std::move(it->second));
      it = table_.erase(it);
    } else {
      ++it;
    }
  }
  return dropped;
}

void HeartbeatTable::forget(const std::string& name, ReplicaId id) { table_.erase({name, id}); }

const BrokerLiveInfo* HeartbeatTable::last(const std::string& name, ReplicaId id) const {
  auto it = table_.find({name, id});
  return it == table_.end() ? nullptr : &it->second;
}

const BrokerLiveInfo* HeartbeatTable::alive(const std::string& name, ReplicaId id) const {
  const BrokerLiveInfo* info = last(name, id);
  if (info == nullptr) return nullptr;
  return info->last_heartbeat + info->timeout >= clock_.now() ? info : nullptr;
}

}  // namespace ferry::controller
