#include "controller/replicas_info.h"

#include <algorithm>

#include "runtime/assert.h"

namespace ferry::controller {

std::string BrokerSet::address_of(ReplicaId id) const {
  auto it = replicas.find(id);
  return it == replicas.end() ? std::string{} : it->second.address;
}

Applied ReplicasInfo::apply(const Event& e) {
  ++applied_;
  return std::visit([this](const auto& ev) { return apply_one(ev); }, e);
}

const BrokerSet* ReplicasInfo::find(const std::string& name) const {
  auto it = sets_.find(name);
  return it == sets_.end() ? nullptr : &it->second;
}

Applied ReplicasInfo::apply_one(const ApplyReplicaIdEvent& e) {
  if (e.id < kFirstReplicaId) return Applied::fenced;
  auto it = sets_.find(e.name);
  if (it == sets_.end()) {
    // Only the first id creates a group (decisions.h hands out 1 to an unknown group).
    if (e.id != kFirstReplicaId) return Applied::fenced;
    BrokerSet set;
    set.cluster = e.cluster;
    set.name = e.name;
    it = sets_.emplace(e.name, std::move(set)).first;
  }
  BrokerSet& set = it->second;
  auto taken = set.replicas.find(e.id);
  if (taken != set.replicas.end()) {
    // A retry of the same apply is idempotent; another broker's claim on the id is fenced.
    return taken->second.register_check_code == e.register_check_code ? Applied::changed
                                                                      : Applied::fenced;
  }
  set.replicas.emplace(e.id, Replica{e.address, e.register_check_code});
  set.next_replica_id = std::max(set.next_replica_id, e.id + 1);
  return Applied::changed;
}

Applied ReplicasInfo::apply_one(const ElectMasterEvent& e) {
  auto it = sets_.find(e.name);
  if (it == sets_.end()) return Applied::fenced;
  BrokerSet& set = it->second;
  if (set.master_epoch != e.seen_master_epoch) return Applied::fenced;
  if (e.master && !set.replicas.contains(*e.master)) return Applied::fenced;
  set.master = e.master;
  ++set.master_epoch;
  if (e.master) {
    set.sync_state_set = {*e.master};
    ++set.sync_state_set_epoch;
  }
  return Applied::changed;
}

Applied ReplicasInfo::apply_one(const AlterSyncStateSetEvent& e) {
  auto it = sets_.find(e.name);
  if (it == sets_.end()) return Applied::fenced;
  BrokerSet& set = it->second;
  if (set.master != e.master) return Applied::fenced;
  if (set.master_epoch != e.seen_master_epoch) return Applied::fenced;
  if (set.sync_state_set_epoch != e.seen_sync_state_set_epoch) return Applied::fenced;
  if (!e.sync_state_set.contains(e.master)) return Applied::fenced;
  for (ReplicaId id : e.sync_state_set) {
    if (!set.replicas.contains(id)) return Applied::fenced;
  }
  set.sync_state_set = e.sync_state_set;
  ++set.sync_state_set_epoch;
  return Applied::changed;
}

Applied ReplicasInfo::apply_one(const CleanBrokerDataEvent& e) {
  auto it = sets_.find(e.name);
  if (it == sets_.end()) return Applied::fenced;
  if (e.ids.empty()) {
    sets_.erase(it);
    return Applied::changed;
  }
  BrokerSet& set = it->second;
  for (ReplicaId id : e.ids) {
    set.replicas.erase(id);
    set.sync_state_set.erase(id);
    if (set.master == id) set.master.reset();
  }
  if (set.replicas.empty()) sets_.erase(it);
  return Applied::changed;
}

Applied ReplicasInfo::apply_one(const UpdateReplicaAddressEvent& e) {
  auto it = sets_.find(e.name);
  if (it == sets_.end()) return Applied::fenced;
  auto replica = it->second.replicas.find(e.id);
  if (replica == it->second.replicas.end()) return Applied::fenced;
  replica->second.address = e.address;
  return Applied::changed;
}

}  // namespace ferry::controller
