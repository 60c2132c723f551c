#include "controller/decisions.h"

#include <charconv>
#include <vector>

#include <fmt/format.h>

namespace ferry::controller {
namespace {

Verdict refuse(std::int32_t code, std::string remark) { return Verdict{code, std::move(remark), {}}; }

// Among the alive `candidates`, the best by epoch (high), max offset (high), priority (low), id.
std::optional<ReplicaId> best_of(const BrokerSet& set, const std::set<ReplicaId>& candidates,
                                 const Liveness& alive) {
  const BrokerLiveInfo* best = nullptr;
  for (ReplicaId id : candidates) {
    const BrokerLiveInfo* info = alive.alive(set.name, id);
    if (info == nullptr) continue;
    if (best == nullptr) {
      best = info;
      continue;
    }
    auto key = [](const BrokerLiveInfo& i) {
      return std::make_tuple(-static_cast<std::int64_t>(i.epoch), -i.max_offset,
                             i.election_priority, i.id);
    };
    if (key(*info) < key(*best)) best = info;
  }
  if (best == nullptr) return std::nullopt;
  return best->id;
}

std::optional<ReplicaId> choose_among(const BrokerSet& set, const std::set<ReplicaId>& candidates,
                                      const Liveness& alive, std::optional<ReplicaId> prefer) {
  auto valid = [&](ReplicaId id) {
    return candidates.contains(id) && alive.alive(set.name, id) != nullptr;
  };
  if (set.master && valid(*set.master) && (!prefer || *prefer == *set.master)) return set.master;
  if (prefer) return valid(*prefer) ? prefer : std::nullopt;
  return best_of(set, candidates, alive);
}

}  // namespace

std::optional<ReplicaId> choose_master(const BrokerSet& set, const Liveness& alive,
                                       bool allow_unclean, std::optional<ReplicaId> prefer) {
  if (auto in_sync = choose_among(set, set.sync_state_set, alive, prefer)) return in_sync;
  if (!allow_unclean) return std::nullopt;
  std::set<ReplicaId> everyone;
  for (const auto& [id, replica] : set.replicas) everyone.insert(id);
  return choose_among(set, everyone, alive, prefer);
}

Verdict decide_elect(const ReplicasInfo& info, const ElectRequest& req, const Liveness& alive,
                     bool allow_unclean) {
  const BrokerSet* set = info.find(req.name);
  if (set == nullptr) {
    return refuse(code::CONTROLLER_BROKER_NEED_TO_BE_REGISTERED,
                  fmt::format("Broker {} hasn't been registered", req.name));
  }
  const bool controller_elects = req.requester == kNoReplica;
  std::optional<ReplicaId> chosen;
  if (set->master_epoch == 0 && !controller_elects) {
    // The group's first election: the first broker to ask becomes master (RocketMQ takes it
    // without a liveness check; Ferry asks that it is a replica of the group, and that a replica
    // an operator designates is alive).
    const bool alive_enough = !req.designate || alive.alive(req.name, req.requester) != nullptr;
    if (set->replicas.contains(req.requester) && alive_enough) chosen = req.requester;
  } else {
    std::optional<ReplicaId> prefer;
    if (req.designate) prefer = req.requester;
    chosen = choose_master(*set, alive, allow_unclean, prefer);
  }
  if (chosen && set->master == chosen) {
    return refuse(code::CONTROLLER_MASTER_STILL_EXIST,
                  fmt::format("The old master {} of {} is still alive, no need to elect", *chosen,
                              req.name));
  }
  if (chosen) {
    return Verdict{code::SUCCESS, {}, Event{ElectMasterEvent{req.name, chosen, set->master_epoch}}};
  }
  if (controller_elects) {
    // Nobody qualifies: record that the group has no master; the epoch moves on, so the old
    // master, if it returns, is fenced.
    Verdict v = refuse(code::CONTROLLER_MASTER_NOT_AVAILABLE,
                       fmt::format("No alive replica of {} can become master", req.name));
    if (set->master) v.event = Event{ElectMasterEvent{req.name, std::nullopt, set->master_epoch}};
    return v;
  }
  return refuse(code::CONTROLLER_ELECT_MASTER_FAILED,
                fmt::format("Failed to elect a new master of {}", req.name));
}

Verdict decide_alter(const ReplicasInfo& info, const AlterRequest& req, const Liveness& alive) {
  const BrokerSet* set = info.find(req.name);
  if (set == nullptr) {
    return refuse(code::CONTROLLER_ALTER_SYNC_STATE_SET_FAILED, "Broker metadata is not existed");
  }
  if (req.new_set == set->sync_state_set) {
    return refuse(code::CONTROLLER_ALTER_SYNC_STATE_SET_FAILED,
                  "The newSyncStateSet is equal with oldSyncStateSet, no needed to update syncStateSet");
  }
  if (!set->master || *set->master != req.master) {
    return refuse(code::CONTROLLER_INVALID_MASTER,
                  fmt::format("Rejecting alter syncStateSet request because the current leader is:{}, not {}",
                              set->master ? std::to_string(*set->master) : "none", req.master));
  }
  if (req.master_epoch != set->master_epoch) {
    return refuse(code::CONTROLLER_FENCED_MASTER_EPOCH,
                  fmt::format("Rejecting alter syncStateSet request because the current master epoch is:{}, not {}",
                              set->master_epoch, req.master_epoch));
  }
  if (req.sync_state_set_epoch != set->sync_state_set_epoch) {
    return refuse(code::CONTROLLER_FENCED_SYNC_STATE_SET_EPOCH,
                  fmt::format("Rejecting alter syncStateSet request because the current syncStateSet epoch is:{}, not {}",
                              set->sync_state_set_epoch, req.sync_state_set_epoch));
  }
  for (ReplicaId id : req.new_set) {
    if (!set->replicas.contains(id)) {
      return refuse(code::CONTROLLER_INVALID_REPLICAS,
                    fmt::format("Rejecting alter syncStateSet request because the replicas {} don't exist", id));
    }
    if (alive.alive(req.name, id) == nullptr) {
      return refuse(code::CONTROLLER_BROKER_NOT_ALIVE,
                    fmt::format("Rejecting alter syncStateSet request because the replicas {} don't alive", id));
    }
  }
  if (!req.new_set.contains(req.master)) {
    return refuse(code::CONTROLLER_ALTER_SYNC_STATE_SET_FAILED,
                  fmt::format("Rejecting alter syncStateSet request because the newSyncStateSet don't contains origin leader {}",
                              req.master));
  }
  return Verdict{code::SUCCESS, {},
                 Event{AlterSyncStateSetEvent{req.name, req.master, req.master_epoch,
                                              req.sync_state_set_epoch, req.new_set}}};
}

ReplicaId next_replica_id(const ReplicasInfo& info, const std::string& name) {
  const BrokerSet* set = info.find(name);
  return set == nullptr ? kFirstReplicaId : set->next_replica_id;
}

Verdict decide_apply_id(const ReplicasInfo& info, const ApplyIdRequest& req) {
  const auto semi = req.register_check_code.find(';');
  if (semi == std::string::npos || semi == 0) {
    return refuse(code::CONTROLLER_BROKER_ID_INVALID,
                  fmt::format("registerCheckCode '{}' is not <address>;<millis>", req.register_check_code));
  }
  Event event{ApplyReplicaIdEvent{req.cluster, req.name, req.id, req.register_check_code.substr(0, semi),
                                  req.register_check_code}};
  const BrokerSet* set = info.find(req.name);
  if (set == nullptr) {
    if (req.id != kFirstReplicaId) {
      return refuse(code::CONTROLLER_BROKER_ID_INVALID,
                    fmt::format("Broker-set: {} hasn't been registered in controller, but broker try to apply brokerId: {}",
                                req.name, req.id));
    }
    return Verdict{code::SUCCESS, {}, std::move(event)};
  }
  auto taken = set->replicas.find(req.id);
  if (taken == set->replicas.end()) {
    if (req.id < kFirstReplicaId) {
      return refuse(code::CONTROLLER_BROKER_ID_INVALID, fmt::format("brokerId {} is not a valid id", req.id));
    }
    return Verdict{code::SUCCESS, {}, std::move(event)};
  }
  if (taken->second.register_check_code == req.register_check_code) return Verdict{};  // a retry
  return refuse(code::CONTROLLER_BROKER_ID_INVALID,
                fmt::format("Fail to apply brokerId: {} in broker-set: {}", req.id, req.name));
}

Verdict decide_register(const ReplicasInfo& info, const std::string& name, ReplicaId id,
                        const std::string& address) {
  const BrokerSet* set = info.find(name);
  if (set == nullptr || !set->replicas.contains(id)) {
    return refuse(code::CONTROLLER_BROKER_NEED_TO_BE_REGISTERED,
                  fmt::format("Broker {} id {} hasn't been registered", name, id));
  }
  if (set->replicas.at(id).address == address) return Verdict{};
  return Verdict{code::SUCCESS, {}, Event{UpdateReplicaAddressEvent{name, id, address}}};
}

Verdict decide_clean(const ReplicasInfo& info, const CleanRequest& req, const Liveness& alive) {
  const BrokerSet* set = info.find(req.name);
  if (set == nullptr) {
    return refuse(code::CONTROLLER_INVALID_CLEAN_BROKER_METADATA,
                  fmt::format("Broker-set {} is not existed", req.name));
  }
  std::vector<ReplicaId> ids;
  std::string_view rest = req.ids;
  while (!rest.empty()) {
    const auto semi = rest.find(';');
    std::string_view one = rest.substr(0, semi);
    rest = semi == std::string_view::npos ? std::string_view{} : rest.substr(semi + 1);
    if (one.empty()) continue;
    ReplicaId id = 0;
    auto [end, ec] = std::from_chars(one.data(), one.data() + one.size(), id);
    if (ec != std::errc{} || end != one.data() + one.size()) {
      return refuse(code::CONTROLLER_INVALID_CLEAN_BROKER_METADATA,
                    fmt::format("Please set the option <brokerControllerIdsToClean> according to the format, got '{}'", one));
    }
    ids.push_back(id);
  }
  if (!req.clean_living) {
    if (ids.empty() && set->master && alive.alive(req.name, *set->master) != nullptr) {
      return refuse(code::CONTROLLER_INVALID_CLEAN_BROKER_METADATA,
                    fmt::format("The broker-set {} still has an alive master", req.name));
    }
    const std::vector<ReplicaId> all = [&] {
      std::vector<ReplicaId> v;
      for (const auto& [id, r] : set->replicas) v.push_back(id);
      return v;
    }();
    for (ReplicaId id : ids.empty() ? all : ids) {
      if (alive.alive(req.name, id) != nullptr) {
        return refuse(code::CONTROLLER_INVALID_CLEAN_BROKER_METADATA,
                      fmt::format("The broker {} of {} is still alive", id, req.name));
      }
    }
  }
  return Verdict{code::SUCCESS, {}, Event{CleanBrokerDataEvent{req.name, ids}}};
}

}  // namespace ferry::controller
