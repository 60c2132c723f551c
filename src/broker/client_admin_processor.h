// The admin requests a broker answers by asking its clients (RocketMQ's AdminBrokerProcessor
// resetOffset / getConsumerStatus / getConsumerRunningInfo / consumeMessageDirectly and
// Broker2Client). docs/client.md, "Broker-to-client requests", has the whole exchange.
//
// INVOKE_BROKER_TO_RESET_OFFSET (222), header ResetOffsetRequestHeader: for each of the topic's
//   write queues here, the target offset is the queue's max offset (timestamp -1) or the first
//   offset stored at or after the timestamp (0 when none); without isForce a queue whose committed
//   offset is already before it keeps its committed offset. Every online consumer of the group
//   gets RESET_CONSUMER_CLIENT_OFFSET (220, oneway) with those offsets (ResetOffsetBody); the reply
//   is SUCCESS with the same ResetOffsetBody. The broker's stored offsets do not change here: the
//   clients commit the new ones.
//   Refusals: 1 SYSTEM_ERROR — a bad header, the topic is not on this broker;
//             206 CONSUMER_NOT_ONLINE — the group has no connected consumer (mqadmin then resets
//             the stored offsets itself).
//   (RocketMQ refuses the whole reset when a queue has no committed offset for the group; Ferry
//   resets such a queue to the time's offset, since a fresh group is when a reset is wanted.)
// INVOKE_BROKER_TO_GET_CONSUMER_STATUS (223), header GetConsumerStatusRequestHeader: asks each
//   online consumer of the group (only clientAddr's, when given) GET_CONSUMER_STATUS_FROM_CLIENT
//   (221) one after another, each bounded by client_call_timeout; a client that fails or times
//   out is left out (and logged). Reply SUCCESS, body GetConsumerStatusBody.consumerTable by
//   clientId. Refusal: 1 SYSTEM_ERROR — a bad header, no consumer online (RocketMQ's code and
//   remark for this request).
// GET_CONSUMER_RUNNING_INFO (307) and CONSUME_MESSAGE_DIRECTLY (309): relayed to the consumer of
//   consumerGroup with clientId, the same extFields and body (309: the broker adds brokerName and
//   the stored message named by msgId as the body), and the client's reply handed back as is.
//   Refusals: 1 SYSTEM_ERROR — a bad header, the client is not online, 309's msgId is not an
//   offset msgId or names no stored message, the call failed; 207 CONSUME_MSG_TIMEOUT — the client
//   did not answer within relay_timeout.
//
// Bounds: ClientCalls (client_calls.h) bounds the calls waiting for clients; a reset sends one
// oneway frame per online consumer. Lifetime: owned by the Broker; loop only.
#pragma once

#include "broker/broker_config.h"
#include "broker/client_calls.h"
#include "broker/consumer_manager.h"
#include "broker/consumer_offset_manager.h"
#include "broker/replies.h"
#include "broker/topic_config_manager.h"
#include "runtime/log_limiter.h"
#include "store/message_store.h"

namespace ferry::broker {

struct ClientAdminTimeouts {
  Duration client_call = std::chrono::seconds(5);  // 221 to each client (RocketMQ: 5 s)
  Duration relay = std::chrono::seconds(10);       // 307/309 (RocketMQ's callClient: 10 s)
};

class ClientAdminProcessor {
 public:
  using Timeouts = ClientAdminTimeouts;

  ClientAdminProcessor(Runtime& rt, const BrokerConfig& config, store::MessageStore& store, TopicConfigManager& topics,
                       ConsumerOffsetManager& offsets, ConsumerManager& consumers, ClientCalls& calls,
                       Timeouts timeouts = ClientAdminTimeouts{})
      : rt_(rt), config_(config), store_(store), topics_(topics), offsets_(offsets), consumers_(consumers), calls_(calls),
        timeouts_(timeouts) {}

  Task<Reply> reset_offset(RequestContext ctx);
  Task<Reply> consumer_status(RequestContext ctx);
  Task<Reply> running_info(RequestContext ctx);
  Task<Reply> consume_directly(RequestContext ctx);

 private:
  // The online member of `group` with `client_id`, or nullopt.
  std::optional<ClientChannel> find_client(std::string_view group, std::string_view client_id) const;
  // Relays `code` with the request's fields and `body` to the client; the reply answers `request`.
  Task<Reply> call_consumer(std::int32_t code, RemotingCommand request, std::string group, std::string client_id);

  Runtime& rt_;
  const BrokerConfig& config_;
  store::MessageStore& store_;
  TopicConfigManager& topics_;
  ConsumerOffsetManager& offsets_;
  ConsumerManager& consumers_;
  ClientCalls& calls_;
  const Timeouts timeouts_;
  LogLimiter reset_error_log_;   // clients not told of a reset, by Errc
  LogLimiter status_error_log_;  // clients whose status did not come (1 failed, 2 refused, 3 bad body)
};

}  // namespace ferry::broker
