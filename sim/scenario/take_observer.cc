#include "sim/scenario/take_observer.h"

#include "sim/cluster/workload.h"

namespace ferry::sim::scenario {

void TakeObserver::look(MonoTime now) {
  for (const auto& [name, node] : clients_) {
    client::PushConsumer* pc = cluster::push_consumer_of(cluster_, node);
    if (pc == nullptr) continue;  // down, or not a push consumer
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
