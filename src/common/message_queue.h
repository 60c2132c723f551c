// MessageQueue: one queue of a topic on one broker. Ordered by (topic, broker name, queue id),
// as RocketMQ's MessageQueue.compareTo; rebalance sorts by this order.
#pragma once

#include <compare>
#include <string>

#include "common/offsets.h"

namespace ferry {

struct MessageQueue {
  std::string topic;
  std::string broker_name;
  QueueId queue_id;

  auto operator<=>(const MessageQueue&) const = default;

  // "MessageQueue [topic=T, brokerName=B, queueId=0]" (Java's toString, which the consistent
  // hash strategy hashes).
  std::string to_string() const;
};

}  // namespace ferry
