#include "sim/scenario/offset_observer.h"

namespace ferry::sim::scenario {

void OffsetObserver::look_at_floors(MonoTime now, broker::Broker& b, const std::string& group_name) {
  for (const cluster::TopicSpec& t : cluster_.spec().topics) {
    for (std::int32_t q = 0; q < t.queues; ++q) {
      const MessageQueue mq{t.name, group_name, QueueId(q)};
      const QueueOffset min = b.store().min_offset(t.name, QueueId(q));
      QueueOffset& floor = floors_[mq];
      if (!(floor < min)) continue;
      floor = min;
      history_->queue_floors.push_back(sim::QueueFloorRecord{now, mq, min});
    }
  }
}

void OffsetObserver::look(MonoTime now) {
  for (std::size_t i = 0; i < cluster_.broker_count(); ++i) {
    broker::Broker* b = cluster_.broker(i);
    if (b == nullptr || b->state() != broker::Broker::State::running || b->config().broker_role == broker::BrokerRole::slave) continue;
    const std::string& node = cluster_.broker_label(i);
    const std::string& group_name = cluster_.spec().brokers.at(cluster_.broker_group(i)).name;
    look_at_floors(now, *b, group_name);
    for (const auto& [key, offsets] : b->offsets().table()) {
      // "topic@group": topic names cannot hold '@' (RocketMQ's name rules).
      const std::size_t at = key.find('@');
      if (at == std::string::npos) continue;
      for (const auto& [queue_id, offset] : offsets) {
        auto [it, fresh] = last_.emplace(std::tuple{node, key, queue_id}, offset);
        if (!fresh && it->second == offset) continue;
        it->second = offset;
        sim::CommitRecord r;
        r.at = now;
        r.broker = node;
        r.group = key.substr(at + 1);
        r.queue = MessageQueue{key.substr(0, at), group_name, QueueId(queue_id)};
        r.offset = QueueOffset(offset);
        history_->commits.push_back(std::move(r));
      }
    }
  }
}

}  // namespace ferry::sim::scenario
