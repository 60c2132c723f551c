// ClientInstance: what the producers, consumers and admin calls of one client process (or one
// simulated client node) share (RocketMQ's MQClientInstance).
//
//   ClientInstance ci(rt, config);   // clientID = "ip@instanceName"
//   ci.start();                      // route polling every 30 s, heartbeats every 30 s
//   Producer p(ci, ProducerConfig{.group = "PG"}); FERRY_TRY(p.start());
//   ...
//   co_await ci.shutdown();          // UNREGISTER_CLIENT to every broker, loops stop, sockets close
//
// Routes: GET_ROUTEINFO_BY_TOPIC for every topic in use (published topics, the topics of every
// registered consumer's subscriptions), every poll interval and on demand. A changed route
// updates the broker address table (name → {id → addr}), the publish info of the topic (writable
// queues of brokers with a master) and its subscribe queues (readable queues; consumers hear of
// a change). A failed update (no NameServer answers, unknown topic) keeps what was known.
//
// Heartbeats: HEART_BEAT {clientID, producerDataSet, consumerDataSet} to the master of every
// known broker, and to slaves too when a consumer is registered, every heartbeat interval and
// when a producer or consumer registers. Before each round, brokers that no route mentions any
// more are forgotten (RocketMQ's cleanOfflineBroker).
//
// Broker-to-client requests (client_requests.cc; docs/client.md): RESET_CONSUMER_CLIENT_OFFSET
// (220, oneway), GET_CONSUMER_STATUS_FROM_CLIENT (221), GET_CONSUMER_RUNNING_INFO (307) and
// CONSUME_MESSAGE_DIRECTLY (309) go to the registered consumer of the request's group
// (ConsumerHandle). 221 answers an empty table for a group not registered here; 307 and 309 answer
// SYSTEM_ERROR "The Consumer Group <G> not exist in this consumer" (RocketMQ's remark); a bad
// header or body gets SYSTEM_ERROR naming the field (220, oneway: a log line).
//
// Consumers: every rebalance interval (20 s), and at once when a broker sends
// NOTIFY_CONSUMER_IDS_CHANGED (served on the instance's RpcClient), each registered consumer is
// asked to rebalance (ConsumerHandle::rebalance_soon); every 5 s (first after 10 s) to persist
// its offsets (persist_offsets_soon). The consumers do the work in their own tasks.
//
// Lifetime and threading: construct, call and destroy on the node's loop. Background loops and
// calls started by the instance are owned by it and destroyed with it. Every Task a method
// returns refers to the instance: it must not outlive it. Producers and consumers must be
// shut down or destroyed before the instance.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "client/client_config.h"
#include "client/consumer_handle.h"
#include "client/name_server_list.h"
#include "client/owned_tasks.h"
#include "client/topic_publish_info.h"
#include "runtime/log_limiter.h"
#include "runtime/wake_signal.h"
#include "common/unique_id.h"
#include "remoting/body/heartbeat_data.h"
#include "remoting/rpc/rpc_client.h"

namespace ferry::client {

// How many requests one instance may await replies for at once (Producer::request).
inline constexpr std::size_t kRepliesAwaitedMax = 10'000;
// A compressed reply body inflating past this is refused (RocketMQ's maxMessageSize is 4 MiB).
inline constexpr std::size_t kReplyBodyBytesMax = 64 * 1024 * 1024;

inline constexpr std::int64_t kMasterId = 0;
// The group of the instance's own producer (RocketMQ's MixAll.CLIENT_INNER_PRODUCER_GROUP).
inline constexpr std::string_view kInnerProducerGroup = "CLIENT_INNER_PRODUCER";

class Producer;

class ClientInstance {
 public:
  using BrokerAddrs = std::map<std::int64_t, std::string>;  // broker id → "ip:port"

  ClientInstance(Runtime& rt, ClientConfig config);
  ~ClientInstance();
  ClientInstance(const ClientInstance&) = delete;
  ClientInstance& operator=(const ClientInstance&) = delete;

  // Starts route polling and heartbeats. Idempotent; nothing after shutdown().
  void start();
  // Unregisters every producer and consumer group from every known broker (UNREGISTER_CLIENT,
  // each call bounded by api_timeout, failures logged), stops the loops and closes every
  // connection. Idempotent. Calls made afterwards fail with Errc::closed.
  Task<void> shutdown();
  bool running() const { return started_ && !shut_down_; }

  const std::string& client_id() const { return client_id_; }
  const ClientConfig& config() const { return config_; }
  Runtime& runtime() { return rt_; }
  remoting::RpcClient& rpc() { return rpc_; }
  NameServerList& name_servers() { return names_; }
  UniqIdGenerator& uniq_ids() { return uniq_ids_; }

  // ---- producers and consumers ---------------------------------------------------------
  // Errors: invalid_argument (bad group name, or the group is already registered here).
  Status register_producer(const std::string& group);
  // Forgets the group and sends UNREGISTER_CLIENT for it to every known broker.
  Task<void> unregister_producer(std::string group);
  // `consumer` must stay valid until unregister_consumer(). Errors as register_producer.
  Status register_consumer(const std::string& group, ConsumerHandle* consumer);
  Task<void> unregister_consumer(std::string group);
  // Forgets `consumer` (if registered for `group`) without telling the brokers: a consumer
  // destroyed without shutdown() calls it so the instance never calls into a dead consumer.
  void forget_consumer(const std::string& group, const ConsumerHandle* consumer);
  const std::set<std::string>& producer_groups() const { return producers_; }
  // The broker's CHECK_TRANSACTION_STATE (39) about a half message of `group` goes to `handler`
  // (a TransactionProducer's, transaction_producer.h), which answers with END_TRANSACTION itself.
  // An empty handler removes it; a check for a group without one is dropped (logged).
  using TransactionCheckHandler = std::function<Task<void>(remoting::RequestContext)>;
  void set_transaction_check_handler(const std::string& group, TransactionCheckHandler handler);
  // Request-reply (Producer::request): the broker's PUSH_REPLY_MESSAGE_TO_CLIENT (326) carrying
  // CORRELATION_ID `id` goes to `handler`, once; a reply nobody waits for is logged and dropped.
  // Errors: busy past kRepliesAwaitedMax, invalid_argument for an id already awaited.
  using ReplyHandler = std::function<void(MessageExt reply)>;
  Status await_reply(const std::string& id, ReplyHandler handler);
  void forget_reply(const std::string& id) { (void)replies_.erase(id); }
  std::size_t replies_awaited() const { return replies_.size(); }
  // The instance's own producer (group CLIENT_INNER_PRODUCER, default ProducerConfig), built and
  // registered at the first call (RocketMQ builds it with the instance); consumers re-send
  // messages to their retry topic with it when a send-back fails. Valid until the instance dies.
  // Errors: invalid_argument (the group is registered by an application producer).
  Result<Producer*> inner_producer();

  // ---- routes ---------------------------------------------------------------------------
  // Asks a NameServer for the route of `topic` and applies it. Errors: not_found (TOPIC_NOT_EXIST),
  // the NameServer errors (no NameServer answered), corrupt (a malformed route body).
  Task<Status> update_topic_route(std::string topic);
  // The producer's auto-create path: `topic` gets the route of `default_topic` (TBW102) with its
  // queue counts capped at `queue_nums` (RocketMQ's updateTopicRouteInfoFromNameServer with
  // isDefault). Errors as update_topic_route for the default topic.
  Task<Status> update_topic_route_from_default(std::string topic, std::string default_topic, std::int32_t queue_nums);
  // One polling round over every topic in use.
  Task<void> update_all_routes();

  // A producer publishes `topic`: the polling round includes it. Returns its publish info (not
  // ok() until a route arrived). The pointer is valid until the instance dies; its contents
  // change with every route update.
  TopicPublishInfo& publish_info(const std::string& topic);
  const TopicPublishInfo* find_publish_info(const std::string& topic) const;
  // A client other than a registered producer or consumer (a POP consumer) uses `topic`: the
  // polling round includes it until as many unwatch_topic() calls.
  void watch_topic(const std::string& topic) { ++watched_[topic]; }
  void unwatch_topic(const std::string& topic);
  // Readable queues of `topic` from the last route (empty when none is known).
  std::vector<MessageQueue> subscribe_queues(const std::string& topic) const;
  std::optional<TopicRouteData> route(const std::string& topic) const;

  // ---- brokers --------------------------------------------------------------------------
  std::optional<std::string> master_address(const std::string& broker_name) const;
  // The master's address, else the lowest slave id's (RocketMQ's findBrokerAddressInAdmin): where
  // reads and consumer offsets go, so they reach the slave while the route has no master.
  std::optional<std::string> any_address(const std::string& broker_name) const;
  // Where to pull from when the last reply suggested `broker_id` (RocketMQ's
  // findBrokerAddressInSubscribe without onlyThisBroker): that id's address; for a slave id
  // that is not in the route, the next id's; else any address, the master first. nullopt when
  // the broker name has no address at all.
  struct FoundBroker {
    std::string addr;
    std::int64_t broker_id = kMasterId;
    bool slave() const { return broker_id != kMasterId; }
  };
  std::optional<FoundBroker> subscribe_address(const std::string& broker_name, std::int64_t broker_id) const;
  const std::map<std::string, BrokerAddrs>& broker_addrs() const { return broker_addrs_; }

  // Wakes the rebalance loop: every consumer rebalances soon (what NOTIFY_CONSUMER_IDS_CHANGED does).
  void rebalance_now() { rebalance_wake_.wake(); }

  // One heartbeat round now (what the loop does). Returns how many brokers accepted it.
  Task<std::size_t> send_heartbeat_to_all();
  remoting::body::HeartbeatData heartbeat_data() const;

  // ---- counters (tests, logs) -----------------------------------------------------------
  std::uint64_t route_poll_rounds() const { return route_poll_rounds_; }
  std::uint64_t heartbeat_rounds() const { return heartbeat_rounds_; }
  std::uint64_t heartbeats_accepted() const { return heartbeats_accepted_; }
  std::uint64_t notifications() const { return notifications_; }
  // Broker-to-client requests served (220, 221, 307, 309), whatever their outcome.
  std::uint64_t broker_requests() const { return broker_requests_; }

 private:
  static Task<void> poll_loop(ClientInstance* self);
  static Task<void> heartbeat_loop(ClientInstance* self);
  static Task<void> heartbeat_soon(ClientInstance* self);
  static Task<void> rebalance_loop(ClientInstance* self);
  static Task<void> persist_loop(ClientInstance* self);
  static Task<std::optional<remoting::RemotingCommand>> on_consumer_ids_changed(ClientInstance* self,
                                                                               remoting::RequestContext ctx);
  // client_requests.cc
  void register_broker_requests();
  ConsumerHandle* find_consumer(const std::string& group) const;
  static Task<std::optional<remoting::RemotingCommand>> on_reset_offset(ClientInstance* self, remoting::RequestContext ctx);
  static Task<std::optional<remoting::RemotingCommand>> on_consumer_status(ClientInstance* self,
                                                                          remoting::RequestContext ctx);
  static Task<std::optional<remoting::RemotingCommand>> on_running_info(ClientInstance* self, remoting::RequestContext ctx);
  static Task<std::optional<remoting::RemotingCommand>> on_push_reply(ClientInstance* self, remoting::RequestContext ctx);
  static Task<std::optional<remoting::RemotingCommand>> on_check_transaction(ClientInstance* self,
                                                                             remoting::RequestContext ctx);
  static Task<std::optional<remoting::RemotingCommand>> on_consume_directly(ClientInstance* self,
                                                                           remoting::RequestContext ctx);
  Task<Result<TopicRouteData>> fetch_route(std::string topic);
  void apply_route(const std::string& topic, TopicRouteData route, bool force);
  void clean_offline_brokers();
  std::set<std::string> topics_in_use() const;
  Task<void> unregister_client(std::optional<std::string> producer_group, std::optional<std::string> consumer_group);

  Runtime& rt_;
  const ClientConfig config_;
  const std::string client_id_;
  remoting::RpcClient rpc_;
  NameServerList names_;
  UniqIdGenerator uniq_ids_;

  std::set<std::string> producers_;
  std::map<std::string, ConsumerHandle*> consumers_;
  std::map<std::string, TransactionCheckHandler> transaction_checks_;
  std::map<std::string, ReplyHandler> replies_;  // by CORRELATION_ID
  std::map<std::string, TopicRouteData> routes_;       // normalized, by topic
  std::map<std::string, TopicPublishInfo> publish_;    // by topic
  std::map<std::string, std::int32_t> watched_;        // watch_topic() counts, by topic
  std::map<std::string, std::vector<MessageQueue>> subscribe_;  // by topic
  std::map<std::string, BrokerAddrs> broker_addrs_;    // by broker name

  bool started_ = false;
  bool shut_down_ = false;
  std::uint64_t route_poll_rounds_ = 0;
  bool skipped_last_poll_ = false;  // the buggify skip of update_all_routes, never two rounds in a row
  std::uint64_t heartbeat_rounds_ = 0;
  std::uint64_t heartbeats_accepted_ = 0;
  std::uint64_t heartbeat_unsupported_logged_ = 0;
  std::uint64_t notifications_ = 0;
  std::uint64_t broker_requests_ = 0;
  LogLimiter heartbeat_error_log_;    // heartbeats that failed, by Errc
  LogLimiter heartbeat_refused_log_;  // heartbeats a broker refused, by response code
  LogLimiter ids_changed_log_;        // NOTIFY_CONSUMER_IDS_CHANGED (1: a bad header)
  // Requests from brokers that cannot be served (1 and 2: which line)
  LogLimiter check_request_log_;  // CHECK_TRANSACTION_STATE
  LogLimiter reply_request_log_;  // PUSH_REPLY_MESSAGE_TO_CLIENT (2: no request awaits it)
  LogLimiter reset_request_log_;  // RESET_CONSUMER_CLIENT_OFFSET
  WakeSignal rebalance_wake_;
  std::unique_ptr<Producer> inner_producer_;  // destroyed first (explicitly, in ~ClientInstance)
  OwnedTasks tasks_;  // last: destroyed first, before what its frames use
};

// "ip@instance[@unit]"
std::string make_client_id(const ClientConfig& config, const std::string& host);

}  // namespace ferry::client
