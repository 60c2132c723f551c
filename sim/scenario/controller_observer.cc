#include "sim/scenario/controller_observer.h"

#include <algorithm>

namespace ferry::sim::scenario {

ControllerObserver::ControllerObserver(cluster::Cluster& c, std::shared_ptr<sim::History> history)
    : cluster_(c), history_(std::move(history)) {
  for (std::size_t i = 0; i < c.broker_count(); ++i) broker_by_addr_.emplace(c.broker_addr(i), c.broker_label(i));
}

void ControllerObserver::look(MonoTime now) {
  look_at_controllers(now);
  look_at_brokers(now);
}

void ControllerObserver::look_at_controllers(MonoTime now) {
  auto name_of_addr = [this](const std::string& addr) {
    auto it = broker_by_addr_.find(addr);
    return it != broker_by_addr_.end() ? it->second : addr;
  };
  for (std::size_t i = 0; i < cluster_.controller_count(); ++i) {
    const controller::Controller* c = cluster_.controller(i);
    if (c == nullptr) continue;
    const std::string name = cluster_.name_of(cluster_.controller_node(i));
    // A failed log sync restarts the controller's Raft from its files in the same process: its
    // state is rebuilt by replaying the log, so its views start over, as after a node restart
    // (controller-history judges each life apart). A restarted node counts from 0 again.
    const std::uint64_t restarts = c->raft().restarts();
    auto [seen, first_look] = raft_restarts_.try_emplace(name, restarts);
    if (!first_look && restarts > seen->second) {
      history_->record_event(now, sim::EventKind::start, name, "raft restarted from its files after a failed log sync");
    }
    seen->second = restarts;
    for (const auto& [group, set] : c->replicas().sets()) {
      sim::ControllerViewRecord r;
      r.at = now;
      r.controller = name;
      r.group = group;
      r.master_epoch = set.master_epoch;
      if (set.master) r.master = name_of_addr(set.address_of(*set.master));
      r.sync_state_set_epoch = set.sync_state_set_epoch;
      for (controller::ReplicaId id : set.sync_state_set) r.sync_state_set.push_back(name_of_addr(set.address_of(id)));
      std::sort(r.sync_state_set.begin(), r.sync_state_set.end());
      auto [it, fresh] = last_view_.try_emplace({name, group}, r);
      if (!fresh && it->second.master_epoch == r.master_epoch && it->second.master == r.master &&
          it->second.sync_state_set_epoch == r.sync_state_set_epoch && it->second.sync_state_set == r.sync_state_set) {
        continue;
      }
      it->second = r;
      history_->controller_views.push_back(std::move(r));
    }
  }
}

void ControllerObserver::look_at_brokers(MonoTime now) {
  for (std::size_t i = 0; i < cluster_.broker_count(); ++i) {
    if (!cluster_.spec().brokers.at(cluster_.broker_group(i)).controller_mode) continue;
    const broker::Broker* b = cluster_.broker(i);
    if (b == nullptr || b->replicas() == nullptr) continue;
    sim::BrokerEpochRecord r;
    r.at = now;
    r.broker = cluster_.broker_label(i);
    r.group = cluster_.spec().brokers.at(cluster_.broker_group(i)).name;
    r.epoch = b->replicas()->epochs().last_epoch();
    r.acked = b->stats().acked_by_epoch();
    auto [it, fresh] = last_epochs_.try_emplace(r.broker, r);
    if (!fresh && it->second.epoch == r.epoch && it->second.acked == r.acked) continue;
    it->second = r;
    history_->broker_epochs.push_back(std::move(r));
  }
}

}  // namespace ferry::sim::scenario
