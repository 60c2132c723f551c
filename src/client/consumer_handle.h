// ConsumerHandle: what a consumer (push, lite pull) registers with its ClientInstance. The
// instance asks it for its heartbeat entry, tells it when the readable queues of a subscribed
// topic change (the rebalance input), and drives its periodic rebalance and offset persistence.
#pragma once

#include <string>
#include <vector>

#include "common/message_queue.h"
#include "remoting/body/heartbeat_data.h"

namespace ferry::client {

class ConsumerHandle {
 public:
  virtual ~ConsumerHandle() = default;
  // This consumer's entry in HEART_BEAT: group, consume type, model, consumeFromWhere and its
  // subscriptions (the instance polls the routes of their topics). Called on the loop.
  virtual remoting::body::ConsumerData consumer_data() const = 0;
  // The readable queues of `topic` (sorted) changed after a route update. Called on the loop.
  virtual void on_subscribe_queues_changed(const std::string& topic, const std::vector<MessageQueue>& queues) {
    (void)topic;
    (void)queues;
  }
  // Run a rebalance soon, in the consumer's own tasks (the instance's 20 s timer and
  // NOTIFY_CONSUMER_IDS_CHANGED). Must not run consumer code inline beyond scheduling.
  virtual void rebalance_soon() {}
  // Persist the consumer's offsets soon, in its own tasks (the instance's 5 s timer).
  virtual void persist_offsets_soon() {}
};

}  // namespace ferry::client
