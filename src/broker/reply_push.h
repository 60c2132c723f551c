// ReplyPusher: the push half of request-reply (RocketMQ 4.6+, ReplyMessageProcessor;
// docs/request_reply.md). A replier's SEND_REPLY_MESSAGE(_V2) (324/325) names the requesting client
// in its REPLY_TO_CLIENT property; the broker finds that client among the producers that heartbeat
// to it and calls PUSH_REPLY_MESSAGE_TO_CLIENT (326) on its connection, with the reply's header
// fields (remoting/header/reply_message_header.h, PUSH_REPLY_TIME added to its properties) and
// body as sent. SendProcessor then stores the reply on the reply topic (storeReplyMessageEnable)
// and answers the replier: SYSTEM_ERROR with push()'s remark when the push failed.
#pragma once

#include <optional>
#include <string>

#include "broker/broker_config.h"
#include "broker/client_calls.h"
#include "broker/producer_manager.h"
#include "remoting/header/send_message_header.h"
#include "remoting/rpc/rpc_server.h"

namespace ferry::broker {

// How long the broker waits for the requesting client's answer (RocketMQ's Broker2Client: 10 s).
inline constexpr Duration kReplyPushTimeout = std::chrono::seconds(10);

class ReplyPusher {
 public:
  ReplyPusher(Runtime& rt, const BrokerConfig& config, ProducerManager& producers, ClientCalls& calls)
      : rt_(rt), config_(config), producers_(producers), calls_(calls) {}

  // Pushes the reply `ctx` carries (header `h`) to its requester: nullopt once the client
  // answered SUCCESS, else why not, in RocketMQ's words ("reply message properties[REPLY_TO_CLIENT]
  // is null", "push reply message fail, channel of ID not found.", "push reply message to ID
  // fail." with the cause).
  Task<std::optional<std::string>> push(const remoting::RequestContext& ctx, const remoting::SendMessageRequestHeader& h);

 private:
  Runtime& rt_;
  const BrokerConfig& config_;
  ProducerManager& producers_;
  ClientCalls& calls_;
};

}  // namespace ferry::broker
