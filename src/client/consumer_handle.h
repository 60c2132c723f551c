// ConsumerHandle: what a consumer (push, pull, lite pull — later issues) registers with its
// ClientInstance. The instance asks it for its heartbeat entry and tells it when the readable
// queues of a subscribed topic change (the rebalance input).
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
};

}  // namespace ferry::client
