#include "sim/scenario/take_observer.h"

#include <fmt/format.h>

#include "sim/cluster/workload.h"

namespace ferry::sim::scenario {

void TakeObserver::note_moved(MonoTime now, const std::string& name, std::uint64_t moved) {
  // A restarted node counts from 0 again: its first look sets the baseline.
  auto [it, fresh] = moved_.try_emplace(name, moved);
  if (fresh || moved <= it->second) {
    it->second = moved;
    return;
  }
  history_->record_event(now, sim::EventKind::rebalance, name,
                         fmt::format("{} pull(s) answered OFFSET_ILLEGAL: the broker moved the offset (the queue is taken "
                                     "again from there)",
                                     moved - it->second));
  it->second = moved;
}

void TakeObserver::look(MonoTime now) {
  for (const auto& [name, node] : clients_) {
    if (client::LitePullConsumer* lp = cluster::lite_pull_consumer_of(cluster_, node)) note_moved(now, name, lp->offsets_moved());
    client::PushConsumer* pc = cluster::push_consumer_of(cluster_, node);
    if (pc == nullptr) continue;  // down, or not a push consumer
    note_moved(now, name, pc->stats().offsets_moved);
    for (const MessageQueue& mq : pc->held_queues()) {
      std::shared_ptr<const client::ProcessQueue> pq = pc->process_queue(mq);
      if (pq == nullptr) continue;
      std::weak_ptr<const client::ProcessQueue>& last = seen_[{name, mq}];
      if (last.lock() == pq) continue;
      last = pq;
      history_->takes.push_back(sim::TakeRecord{now, name, mq, pq->start_offset()});
    }
  }
}

}  // namespace ferry::sim::scenario
