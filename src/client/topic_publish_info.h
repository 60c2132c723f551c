// TopicPublishInfo: where a producer may send a topic's messages (RocketMQ's TopicPublishInfo),
// and the conversions from a NameServer route (MQClientInstance.topicRouteData2TopicPublishInfo /
// topicRouteData2TopicSubscribeInfo).
//
// Publish queues: for each queue data (sorted by broker name) with the write permission, whose
// broker has a master (id 0) address in the route, queues 0..writeQueueNums-1. A route with
// orderTopicConf ("brokerA:4;brokerB:4") lists exactly those queues instead and marks the topic
// ordered. Subscribe queues: for each readable queue data, queues 0..readQueueNums-1.
//
// Selection is round robin from a start index the caller draws (RocketMQ: a random
// ThreadLocalIndex), so two producers do not march in step.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/message_queue.h"
#include "remoting/body/topic_route_data.h"

namespace ferry::client {

using remoting::body::TopicRouteData;

class TopicPublishInfo {
 public:
  TopicPublishInfo() = default;
  TopicPublishInfo(std::string topic, const TopicRouteData& route, std::uint32_t start_index);

  // Has at least one queue to send to.
  bool ok() const { return !queues_.empty(); }
  bool order_topic() const { return order_topic_; }
  const std::vector<MessageQueue>& queues() const { return queues_; }
  const TopicRouteData& route() const { return route_; }

  // The next queue in round robin order.
  const MessageQueue& select_one();
  // The next queue whose broker is not `last_broker` (a retry goes elsewhere); if every queue is
  // on that broker, the next queue. Must be ok().
  const MessageQueue& select_one_avoiding(const std::optional<std::string>& last_broker);
  // Advances and returns the shared round-robin counter (the fault strategy uses it too).
  std::uint32_t next_index() { return index_++; }
  // The write queue count of `broker_name` in the route; 0 when absent.
  std::int32_t write_queue_nums_of(const std::string& broker_name) const;

 private:
  std::vector<MessageQueue> queues_;
  TopicRouteData route_;
  bool order_topic_ = false;
  std::uint32_t index_ = 0;
};

// The queues a consumer of `topic` may read (readable queue datas).
std::vector<MessageQueue> subscribe_queues(const std::string& topic, const TopicRouteData& route);

// The route with queue datas and broker datas sorted by broker name (for comparisons).
TopicRouteData normalized(TopicRouteData route);

}  // namespace ferry::client
