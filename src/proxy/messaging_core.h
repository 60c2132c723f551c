// MessagingCore: the proxy's answers to RocketMQ 5's gRPC MessagingService, below the gRPC layer
// (docs/proxy.md). Each RPC is a coroutine on the proxy's loop that takes the decoded request and
// returns the response the gRPC edge writes; it reaches the cluster through Ferry's client
// (remoting to NameServers and brokers), never a broker's internals. Component code: it runs on
// the production runtime in mqproxy and in the simulator.
//
//   MessagingCore core(rt, instance, ProxyConfig{});
//   FERRY_TRY(core.start());
//   v2::QueryRouteResponse r = co_await core.query_route(request);
//   v2::SendMessageResponse s = co_await core.send_message(request, CallContext{.peer = "10.0.0.7:51234"});
//
// QueryRoute: the topic checked (ILLEGAL_TOPIC), its route asked of the NameServers (unknown:
// TOPIC_NOT_FOUND), answered as v2_route.h says. SendMessage: the messages checked and converted
// (v2_send.h), the topic's route asked as for QueryRoute (a topic the NameServers do not know is
// not created: TOPIC_NOT_FOUND, as RocketMQ's proxy answers), then one remoting send: a single
// message with a message group to the write queue select_fifo_queue picks, without retry; any
// other single message with the producer's own choice and retries; several as one batch. The
// answer as v2_answers.h says.
//
// Topic message types: Ferry's topics have no message.type attribute yet, so every topic takes
// every type (MIXED): a difference from RocketMQ 5, whose proxy takes a topic without the
// attribute as NORMAL (docs/proxy.md, "Open decisions").
//
// Lifetime: loop thread only. The ClientInstance must outlive the core, and the core every Task
// it returned.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "apache/rocketmq/v2/service.pb.h"
#include "client/client_instance.h"
#include "client/producer.h"
#include "proxy/v2_route.h"
#include "proxy/v2_send.h"

namespace ferry::proxy {

struct ProxyConfig {
  SendLimits send;
  RouteOptions route;
  std::string producer_group = "PROXY_PRODUCER";  // the remoting producer the proxy sends with
};

// Who called, as the gRPC edge saw it.
struct CallContext {
  std::string client_id;  // x-mq-client-id
  std::string peer;       // "ip:port" of the caller
};

class MessagingCore {
 public:
  MessagingCore(Runtime& rt, client::ClientInstance& instance, ProxyConfig config);
  MessagingCore(const MessagingCore&) = delete;
  MessagingCore& operator=(const MessagingCore&) = delete;

  // Starts the producer (and the instance). Errors: those of Producer::start.
  Status start();
  Task<void> shutdown();

  Task<v2::QueryRouteResponse> query_route(v2::QueryRouteRequest request);
  Task<v2::SendMessageResponse> send_message(v2::SendMessageRequest request, CallContext context);

  const ProxyConfig& config() const { return config_; }

 private:
  // The topic's route from the NameServers; a refusal when the topic is illegal or unknown.
  Task<std::optional<Refusal>> find_route(std::string topic);

  Runtime& rt_;
  client::ClientInstance& ci_;
  ProxyConfig config_;
  std::unique_ptr<client::Producer> producer_;
};

}  // namespace ferry::proxy
