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
// QueryAssignment (a push consumer's): the topic and group checked, the route found as for
// QueryRoute, answered as v2_route.h's assignment_response says (always one assignment of queue
// -1 per broker: a FIFO group's receives pop in order from every queue of it).
// A group's config (consumeMessageOrderly) is asked of a broker with GET_SUBSCRIPTIONGROUP_CONFIG
// (352) and kept group_config_refresh; a broker that does not know the group, or cannot answer:
// not orderly. An orderly group's receives pop with order=true (one batch of a queue at a time:
// the broker's FIFO POP), and its clients' settings say fifo.
// QueryRoute: the topic checked (ILLEGAL_TOPIC), its route asked of the NameServers (unknown:
// TOPIC_NOT_FOUND), answered as v2_route.h says. SendMessage: the messages checked and converted
// (v2_send.h), the topic's route asked as for QueryRoute (a topic the NameServers do not know is
// not created: TOPIC_NOT_FOUND, as RocketMQ's proxy answers), then one remoting send: a single
// message with a message group to the write queue select_fifo_queue picks, without retry; any
// other single message with the producer's own choice and retries; several as one batch. The
// answer as v2_answers.h says.
//
// ReceiveMessage (facts §3): the group and topic checked (ILLEGAL_CONSUMER_GROUP, ILLEGAL_TOPIC);
// the polling time: long_polling_timeout, else what the deadline leaves less half the client's
// request timeout, within [min_long_polling, max_long_polling], and never past the deadline
// (ILLEGAL_POLLING_TIME when less than min_long_polling is left); the invisible time: auto_renew
// takes default_invisible (not renewed: a difference), else invisible_duration within
// [min_invisible, max_invisible] (ILLEGAL_INVISIBLE_TIME); the filter (TAG or SQL;
// ILLEGAL_FILTER_EXPRESSION); the broker the request names, else the topic's readable brokers in
// turn (none: FORBIDDEN); at most 32 messages; one POP of the group's from there (a group new to
// its queues starts at their end, as RocketMQ's proxy asks). Messages come converted
// (v2_receive.h); one whose reconsume count reached the group's max attempts (retryMaxTimes + 1)
// goes to %DLQ%{group} instead and is acknowledged (RocketMQ 5's proxy; FIFO groups rely on it).
// AckMessage and ChangeInvisibleDuration act on the client's handles (the nine
// fields of v2_receive.h): a handle that does not parse is INVALID_RECEIPT_HANDLE (RocketMQ: an
// internal error), an expired one too, a broker that refuses is INTERNAL_SERVER_ERROR ("ack
// failed: status is abnormal"); a changed handle keeps the CommitLog offset of the old one.
// ForwardMessageToDeadLetterQueue: CONSUMER_SEND_MSG_BACK of the handle's message (its CommitLog
// offset, the handle's ninth field: a handle without it is INVALID_RECEIPT_HANDLE) to its broker
// with delay level -1, so the broker stores it on %DLQ%{group}; the client acknowledges it after,
// as RocketMQ 5's clients do.
// EndTransaction: a sent half message is remembered (its broker, its queue and CommitLog offsets)
// for transaction_data_expire; the client's verdict (COMMIT 8, ROLLBACK 12, anything else 0) goes
// one-way as END_TRANSACTION to that broker's master, with the topic as producer group, as
// RocketMQ's proxy sends it. A blank transaction id is INVALID_TRANSACTION_ID; one the proxy does
// not remember (expired, ended already, sent elsewhere) INTERNAL_SERVER_ERROR, as RocketMQ 5.3
// answers.
// Transaction checks (facts §6): each topic a client publishes (its Telemetry SETTINGS) becomes a
// producer group of the proxy's client instance, so its heartbeats name the group (= the topic)
// and a broker's CHECK_TRANSACTION_STATE for a half message of that topic comes here. The check
// goes to one client publishing the topic whose Telemetry stream takes it (the sink), as a
// RecoverOrphanedTransactionCommand with the half message; its data (the broker that asked, the
// offsets) is remembered as for a send, so the client's EndTransaction (source SERVER_CHECK)
// reaches that broker. No stream takes it: dropped and logged; the broker asks again later. At most
// transaction_groups_max topics are registered so.
//
// Topic message types: Ferry's topics have no message.type attribute yet, so every topic takes
// every type (MIXED): a difference from RocketMQ 5, whose proxy takes a topic without the
// attribute as NORMAL (docs/proxy.md, "Open decisions").
//
// Lifetime: loop thread only. The ClientInstance must outlive the core, and the core every Task
// it returned.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "apache/rocketmq/v2/service.pb.h"
#include "client/client_instance.h"
#include "client/pop_consumer.h"
#include "client/producer.h"
#include "proxy/client_settings.h"
#include "proxy/v2_route.h"
#include "proxy/v2_send.h"
#include "runtime/log_limiter.h"

namespace ferry::proxy {

struct ProxyConfig {
  SendLimits send;
  RouteOptions route;
  std::string producer_group = "PROXY_PRODUCER";  // the remoting producer the proxy sends with
  // ReceiveMessage (RocketMQ 5's ProxyConfig names and defaults).
  Duration min_long_polling = std::chrono::seconds(5);    // grpcClientConsumerMinLongPollingTimeoutMillis
  Duration max_long_polling = std::chrono::seconds(20);   // grpcClientConsumerMaxLongPollingTimeoutMillis
  Duration default_invisible = std::chrono::seconds(60);  // defaultInvisibleTimeMills (auto_renew)
  Duration min_invisible = std::chrono::seconds(10);      // minInvisibleTimeMillsForRecv
  Duration max_invisible = std::chrono::hours(12);        // maxInvisibleTimeMills
  Duration client_request_timeout = std::chrono::seconds(3);  // a client's request_timeout (its settings)
  // A topic's route found within this long is used as it is (RocketMQ 5's
  // topicRouteServiceCacheRefreshSeconds); the client instance also refreshes routes in use every
  // 30 s. At most route_cache_max topics are remembered (topicRouteServiceCacheMaxNum). A topic
  // the NameServers do not know is asked again each time.
  Duration route_refresh = std::chrono::seconds(20);
  std::size_t route_cache_max = 20'000;
  std::size_t pop_groups_max = 4096;
  Duration group_config_refresh = std::chrono::seconds(20);  // subscriptionGroupConfigCacheRefreshSeconds  // consumer groups the proxy keeps a POP consumer for
  std::size_t clients_max = 65536;    // clients whose settings the proxy keeps
  // Transactions (RocketMQ 5's transactionDataExpireMillis, transactionDataMaxNum): what a sent
  // half message's END_TRANSACTION needs, kept this long, at most this many per transaction id.
  Duration transaction_data_expire = std::chrono::seconds(30);
  std::size_t transaction_data_per_id_max = 15;
  std::size_t transaction_groups_max = 4096;  // topics whose broker checks the proxy relays
  std::size_t transaction_data_max = 100'000;  // all together (Ferry's bound)
};

// Who called, as the gRPC edge saw it.
struct CallContext {
  std::string client_id;  // x-mq-client-id
  std::string peer;       // "ip:port" of the caller
  // What is left of the call's gRPC deadline; nullopt: none.
  std::optional<Duration> remaining;
};

class MessagingCore {
 public:
  MessagingCore(Runtime& rt, client::ClientInstance& instance, ProxyConfig config);
  ~MessagingCore();  // removes its transaction check handlers from the instance
  MessagingCore(const MessagingCore&) = delete;
  MessagingCore& operator=(const MessagingCore&) = delete;

  // Starts the producer (and the instance). Errors: those of Producer::start.
  Status start();
  Task<void> shutdown();

  Task<v2::QueryRouteResponse> query_route(v2::QueryRouteRequest request);
  Task<v2::QueryAssignmentResponse> query_assignment(v2::QueryAssignmentRequest request);
  Task<v2::SendMessageResponse> send_message(v2::SendMessageRequest request, CallContext context);
  // The stream's responses, in order (v2_answers.h).
  Task<std::vector<v2::ReceiveMessageResponse>> receive_message(v2::ReceiveMessageRequest request, CallContext context);
  Task<v2::AckMessageResponse> ack_message(v2::AckMessageRequest request);
  Task<v2::ChangeInvisibleDurationResponse> change_invisible_duration(v2::ChangeInvisibleDurationRequest request);
  Task<v2::ForwardMessageToDeadLetterQueueResponse> forward_to_dead_letter_queue(v2::ForwardMessageToDeadLetterQueueRequest request);
  // A command the client wrote on its Telemetry stream: the answer to write back (a SETTINGS
  // command: {status, settings}, or {status} refused: the edge then ends the stream as RocketMQ's
  // proxy does), nullopt for commands that need none.
  std::optional<v2::TelemetryCommand> telemetry(const v2::TelemetryCommand& command, const CallContext& context);
  // telemetry() after asking a broker whether a subscribing client's group is orderly (its
  // settings' fifo). What the gRPC edge calls.
  Task<std::optional<v2::TelemetryCommand>> telemetry_with_group(v2::TelemetryCommand command, CallContext context);
  v2::HeartbeatResponse heartbeat(const v2::HeartbeatRequest& request, const CallContext& context);
  v2::NotifyClientTerminationResponse notify_client_termination(const v2::NotifyClientTerminationRequest& request,
                                                                const CallContext& context);
  Task<v2::EndTransactionResponse> end_transaction(v2::EndTransactionRequest request);

  // Where server commands for a client go (the edge's open Telemetry streams): true when a stream
  // of `client_id` took it. Called on the loop.
  using TelemetrySink = std::function<bool(const std::string& client_id, v2::TelemetryCommand command)>;
  void set_telemetry_sink(TelemetrySink sink) { sink_ = std::move(sink); }
  std::uint64_t checks_relayed() const { return checks_relayed_; }
  std::uint64_t checks_dropped() const { return checks_dropped_; }
  // Messages a receive found past their client's max attempts and sent to the group's DLQ.
  std::uint64_t dead_lettered() const { return dead_lettered_; }

  const ProxyConfig& config() const { return config_; }

 private:
  // The topic's route from the NameServers; a refusal when the topic is illegal or unknown.
  Task<std::optional<Refusal>> find_route(std::string topic);
  // The POP consumer of `group` (made at its first use), the FIFO one (order=true) when `fifo`;
  // nullptr past pop_groups_max consumers.
  client::PopConsumer* pop_consumer(const std::string& group, bool fifo = false);
  // What the proxy needs of a group's config, asked of `broker` (or of a broker of `topic`'s
  // route): consumeMessageOrderly, and retryMaxTimes + 1 as the clients' max attempts.
  struct GroupView {
    bool orderly = false;
    std::int32_t max_attempts = 17;
  };
  Task<GroupView> group_view(std::string group, std::string broker, std::string topic);

  Runtime& rt_;
  client::ClientInstance& ci_;
  ProxyConfig config_;
  std::unique_ptr<client::Producer> producer_;
  std::map<std::pair<std::string, bool>, std::unique_ptr<client::PopConsumer>> pop_consumers_;  // by (group, fifo)
  struct GroupConfigSeen {
    GroupView view;
    MonoTime at{};
  };
  std::map<std::string, GroupConfigSeen> group_configs_;  // by group
  std::map<std::string, std::size_t> next_broker_;  // topic -> round robin over its brokers
  std::map<std::string, MonoTime> route_found_at_;  // topic -> when its route was last asked and found
  ClientSettingsStore settings_;
  // A half message sent or checked: where END_TRANSACTION goes.
  struct TransactionData {
    std::string broker_name;
    std::string address;  // the broker that checked it; empty: broker_name's master
    std::int64_t queue_offset = 0;
    std::int64_t commit_log_offset = 0;
    WallMs expires_at = 0;
  };
  void remember_transaction(const std::string& topic, const client::SendResult& sent);
  void remember_transaction(const std::string& topic, const std::string& id, TransactionData data);
  // The topics a client's SETTINGS publish become producer groups with a check handler.
  void relay_checks_of(const v2::Settings& settings);
  static Task<void> on_transaction_check(MessagingCore* self, std::string group, remoting::RequestContext ctx);
  TelemetrySink sink_;
  std::set<std::string> transaction_groups_;
  std::uint64_t checks_relayed_ = 0;
  std::uint64_t checks_dropped_ = 0;
  std::uint64_t dead_lettered_ = 0;
  std::map<std::pair<std::string, std::string>, std::vector<TransactionData>> transactions_;  // (topic, transaction id)
  std::size_t transactions_count_ = 0;
  LogLimiter transaction_log_;    // half messages not remembered (1 no offset, 2 the cap)
  LogLimiter relay_log_;          // topics whose checks are not relayed (-1 the cap, else by Errc)
  LogLimiter check_dropped_log_;  // checks dropped (1 does not decode, 2 no Telemetry stream)
  LogLimiter dlq_log_;            // messages that could not go to the DLQ, by Errc
  LogLimiter dlq_ack_log_;        // and acks after it that failed, by Errc
};

}  // namespace ferry::proxy
