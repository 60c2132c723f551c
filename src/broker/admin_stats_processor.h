// AdminStatsProcessor: what RocketMQ's admin tools ask a broker about its queues and clients
// (RocketMQ 4.9's AdminBrokerProcessor; headers remoting/header/admin_stats_header.h, bodies
// remoting/body/admin_stats.h and connection.h):
//
//   GET_TOPIC_STATS_INFO (202)  topic → TopicStatsTable: min and max offset of each of the
//       topic's write queues (negative store answers as 0) and the store time of its last
//       message (0 when empty).
//       Refusal: TOPIC_NOT_EXIST (17) "topic[T] not exist" when this broker has no such topic.
//   GET_CONSUMER_CONNECTION_LIST (203)  consumerGroup → ConsumerConnection: the group's online
//       members (client id, address, language, version), its subscriptions and consume modes.
//       Refusal: CONSUMER_NOT_ONLINE (206) "the consumer group[G] not online".
//   GET_PRODUCER_CONNECTION_LIST (204)  producerGroup → ProducerConnection.
//       Refusal: SYSTEM_ERROR (1) "the producer group[G] not exist" (RocketMQ's code and text).
//   GET_CONSUME_STATS (208)  consumerGroup, topic? → ConsumeStats: per read queue the broker's
//       max offset, the group's committed offset (0 when none) and the store time of the last
//       consumed message. Without a topic: every topic the group committed offsets for here.
//       Topics this broker does not have, and topics the online group does not subscribe to
//       (while it subscribes to others), are left out, as RocketMQ does. consumeTps is 0:
//       Ferry counts no per-group rates yet.
// A header that does not decode → SYSTEM_ERROR naming the field (bad_header). Connections are
// listed sorted by client id. Read-only; served on a slave too.
#pragma once

#include "broker/broker_config.h"
#include "broker/consumer_manager.h"
#include "broker/consumer_offset_manager.h"
#include "broker/producer_manager.h"
#include "broker/replies.h"
#include "broker/topic_config_manager.h"
#include "store/message_store.h"

namespace ferry::broker {

class AdminStatsProcessor {
 public:
  AdminStatsProcessor(const BrokerConfig& config, store::MessageStore& store, TopicConfigManager& topics,
                      ConsumerOffsetManager& offsets, ConsumerManager& consumers, ProducerManager& producers)
      : config_(config), store_(store), topics_(topics), offsets_(offsets), consumers_(consumers),
        producers_(producers) {}

  Task<Reply> topic_stats(RequestContext ctx);
  Task<Reply> consumer_connections(RequestContext ctx);
  Task<Reply> producer_connections(RequestContext ctx);
  Task<Reply> consume_stats(RequestContext ctx);

 private:
  const BrokerConfig& config_;
  store::MessageStore& store_;
  TopicConfigManager& topics_;
  ConsumerOffsetManager& offsets_;
  ConsumerManager& consumers_;
  ProducerManager& producers_;
};

}  // namespace ferry::broker
