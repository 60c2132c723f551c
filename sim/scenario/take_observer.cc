#include "sim/scenario/take_observer.h"

#include <fmt/format.h>

#include "sim/cluster/consumer_apps.h"

namespace ferry::sim::scenario {

void TakeLog::note_moved(MonoTime now, const std::string& name, std::uint64_t moved) {
  // A restarted node counts from 0 again: its first look sets the baseline.
  auto [it, fresh] = moved_.try_emplace(name, moved);
  if (fresh || moved <= it->second) {
    it->second = moved;
    return;
  }
  const auto held = history_->hold();
  history_->record_event(now, sim::EventKind::rebalance, name,
                         fmt::format("{} pull(s) answered OFFSET_ILLEGAL: the broker moved the offset (the queue is taken "
                                     "again from there)",
                                     moved - it->second));
  it->second = moved;
}

void TakeLog::look(MonoTime now, const std::string& name, cluster::ClientApp& app) {
  auto* consumer = dynamic_cast<cluster::ConsumerNode*>(&app);
  if (consumer == nullptr) return;
  if (client::LitePullConsumer* lp = consumer->lite_pull()) note_moved(now, name, lp->offsets_moved());
  client::PushConsumer* pc = consumer->push();
  if (pc == nullptr) return;
  note_moved(now, name, pc->stats().offsets_moved);
  for (const MessageQueue& mq : pc->held_queues()) {
    std::shared_ptr<const client::ProcessQueue> pq = pc->process_queue(mq);
    if (pq == nullptr) continue;
    std::weak_ptr<const client::ProcessQueue>& last = seen_[{name, mq}];
    if (last.lock() == pq) continue;
    last = pq;
    const auto held = history_->hold();
    history_->takes.push_back(sim::TakeRecord{now, name, mq, pq->start_offset()});
  }
}

void TakeObserver::look(MonoTime now) {
  for (const auto& [name, node] : clients_) {
    auto* app = dynamic_cast<cluster::ClientApp*>(cluster_.world().node(node).process());
    if (app != nullptr) log_.look(now, name, *app);
  }
}

}  // namespace ferry::sim::scenario
