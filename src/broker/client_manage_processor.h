// ClientManageProcessor: HEART_BEAT (34), UNREGISTER_CLIENT (35) and GET_CONSUMER_LIST_BY_GROUP
// (38) (RocketMQ's ClientManageProcessor and ConsumerManageProcessor.getConsumerListByGroup).
//
// HEART_BEAT: body HeartbeatData. For each consumer group: the subscription group is found or
// auto-created; a clustering consumer's `%RETRY%{group}` topic is created (retryQueueNums
// queues, perm 6) when missing; the channel the heartbeat came on joins the group with its
// subscriptions (ConsumerManager, which notifies the group on a change). Each producer group
// registers the channel too. Reply SUCCESS.
//   a body that does not decode, an empty clientID    1 SYSTEM_ERROR naming the field
//   a group name that is invalid                      1 SYSTEM_ERROR naming it
//   over subscriptions_per_consumer_max topics        1 SYSTEM_ERROR
//   client_channels_max registrations reached         2 SYSTEM_BUSY (nothing more registered)
// UNREGISTER_CLIENT: header clientID, producerGroup, consumerGroup; drops the requesting
// channel's registrations in the named groups. Reply SUCCESS.
// CHECK_CLIENT_CONFIG (46): body CheckClientRequestBody; whether this broker can serve the
// subscription (RocketMQ's checkClientConfig, which a consumer with an SQL92 subscription calls
// before it starts): SUCCESS for TAG (or no subscription); SYSTEM_ERROR when SQL92 and
// enablePropertyFilter is false; SUBSCRIPTION_PARSE_FAILED (23) with the compiler's message
// (line and column) when the expression or its type does not compile.
// GET_CONSUMER_LIST_BY_GROUP: header consumerGroup → body {"consumerIdList":[...]} (sorted), or
// SYSTEM_ERROR "no consumer for this group" when it has no member.
#pragma once

#include "broker/broker_config.h"
#include "broker/consumer_manager.h"
#include "broker/producer_manager.h"
#include "broker/replies.h"
#include "broker/subscription_group_manager.h"
#include "broker/topic_config_manager.h"
#include "runtime/log_limiter.h"

namespace ferry::broker {

class ClientManageProcessor {
 public:
  ClientManageProcessor(Runtime& rt, const BrokerConfig& config, ConsumerManager& consumers,
                        ProducerManager& producers, SubscriptionGroupManager& groups, TopicConfigManager& topics)
      : rt_(rt), config_(config), consumers_(consumers), producers_(producers), groups_(groups), topics_(topics) {}

  // `tag`: which of the broker's servers the request came in on.
  Task<Reply> heartbeat(RequestContext ctx, ServerTag tag);
  Task<Reply> unregister_client(RequestContext ctx, ServerTag tag);
  Task<Reply> consumer_list(RequestContext ctx);
  Task<Reply> check_client_config(RequestContext ctx);

 private:
  Runtime& rt_;
  const BrokerConfig& config_;
  ConsumerManager& consumers_;
  ProducerManager& producers_;
  SubscriptionGroupManager& groups_;
  TopicConfigManager& topics_;
  LogLimiter retry_topic_log_;  // retry topics a heartbeat could not create
  LogLimiter bad_filter_log_;   // CHECK_CLIENT_CONFIG filters that do not compile
};

}  // namespace ferry::broker
