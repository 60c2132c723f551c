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
//       (while it subscribes to others), are left out, as RocketMQ does. consumeTps is the
//       group's GROUP_GET_NUMS tps over the last minute (BrokerStats), as RocketMQ's.
//   QUERY_TOPIC_CONSUME_BY_WHO (300)  topic → GroupList: the groups online with a subscription
//       to the topic and the groups with committed offsets on it, sorted (RocketMQ's union of
//       the consumer manager's and the offset manager's). An unknown topic gets an empty list.
//   VIEW_BROKER_STATS_DATA (315)  statsName, statsKey → BrokerStatsData: that key's minute /
//       hour / day figures (BrokerStats::view: TOPIC_PUT_NUMS / TOPIC_PUT_SIZE by topic,
//       GROUP_GET_NUMS / GROUP_GET_SIZE by "topic@group").
//       Refusal: SYSTEM_ERROR (1) "The stats <NAME> <KEY> not exist" for another name, a key
//       never counted, or one evicted (RocketMQ's code and text).
//   GET_BROKER_CONSUME_STATS (317)  isOrder → ConsumeStatsList: for every subscription group
//       (sorted), a ConsumeStats per topic it committed offsets on (sorted; per write queue, as
//       RocketMQ does here), with the same topic rules as 208 and, with isOrder, only topics
//       configured as order topics; brokerAddr and the total diff of all of them.
// A header that does not decode → SYSTEM_ERROR naming the field (bad_header). Connections are
// listed sorted by client id. Read-only; served on a slave too.
#pragma once

#include <string>

#include "broker/broker_config.h"
#include "broker/broker_stats.h"
#include "broker/consumer_manager.h"
#include "broker/consumer_offset_manager.h"
#include "broker/producer_manager.h"
#include "broker/replies.h"
#include "broker/subscription_group_manager.h"
#include "broker/topic_config_manager.h"
#include "remoting/body/admin_stats.h"
#include "store/message_store.h"

namespace ferry::broker {

class AdminStatsProcessor {
 public:
  // What it reads; every reference outlives the processor. `broker_addr` is the "ip:port"
  // 317 names.
  struct Sources {
    store::MessageStore& store;
    TopicConfigManager& topics;
    ConsumerOffsetManager& offsets;
    ConsumerManager& consumers;
    ProducerManager& producers;
    const SubscriptionGroupManager& groups;
    const BrokerStats& stats;
  };
  AdminStatsProcessor(Runtime& rt, const BrokerConfig& config, Sources s, std::string broker_addr)
      : rt_(rt), config_(config), store_(s.store), topics_(s.topics), offsets_(s.offsets), consumers_(s.consumers),
        producers_(s.producers), groups_(s.groups), stats_(s.stats), broker_addr_(std::move(broker_addr)) {}

  Task<Reply> topic_stats(RequestContext ctx);
  Task<Reply> consumer_connections(RequestContext ctx);
  Task<Reply> producer_connections(RequestContext ctx);
  Task<Reply> consume_stats(RequestContext ctx);
  Task<Reply> topic_consumed_by(RequestContext ctx);
  Task<Reply> view_stats(RequestContext ctx);
  Task<Reply> broker_consume_stats(RequestContext ctx);

 private:
  // Whether 208 / 317 list `topic` for `group`: no when an online group subscribes to other
  // topics only.
  bool subscribed(const ConsumerGroupInfo* online, const std::string& topic) const;
  // One topic's ConsumeStats for `group` over its first `queue_nums` queues.
  remoting::body::ConsumeStats topic_consume_stats(const std::string& group, const std::string& topic,
                                                   std::int32_t queue_nums) const;

  Runtime& rt_;
  const BrokerConfig& config_;
  store::MessageStore& store_;
  TopicConfigManager& topics_;
  ConsumerOffsetManager& offsets_;
  ConsumerManager& consumers_;
  ProducerManager& producers_;
  const SubscriptionGroupManager& groups_;
  const BrokerStats& stats_;
  const std::string broker_addr_;
};

}  // namespace ferry::broker
