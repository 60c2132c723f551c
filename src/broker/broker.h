// Broker: one broker node (RocketMQ's BrokerController) — the MessageStore, the topic and
// consumer-offset managers, long polling, NameServer registration, and the RpcServer that
// serves the request processors.
//
// Lifecycle (on the node's loop):
//   Broker b(rt, config);          // builds everything; nothing touches disk or network
//   Status s = co_await b.start(); // opens the store (recovery), loads config/, listens on
//                                  // listen_port, registers with the NameServers, starts loops
//   co_await b.stop();             // graceful: unregisters, stops serving, persists config/,
//                                  // shuts the store down (checkpoint; no abort file)
// launch() spawns start() for node factories; state() says how it went. A crash simply
// destroys the node's tasks and then the Broker: whatever was not persisted is lost the way a
// killed process loses it (offsets of the last 5 s; unsynced CommitLog data under ASYNC_FLUSH).
//
// Served codes (on listen_port, and with vip_channel_enable on listen_port - 2 too, except 11):
// 10/310/320 send, 11 pull, 14/15 consumer offsets, 29/30/31/32 queue offsets,
// 12/33 query and view, 17/215 topic admin, 28 runtime info (BrokerStats), 21/43/45 whole
// metadata tables for slaves (MetadataExportProcessor); through ConsumerServices: 34/35/38 client
// registrations, 36 send-back, 41/42 queue locks, 200/201/207 subscription groups, and the
// delivery of delayed messages; through ClientAdminProcessor: 222/223/307/309, which the broker
// answers by asking its clients; through PopService: 200050/200051/200053/200151 (POP consumption).
// Other components add theirs through register_processor().
// A slave (broker_role slave) copies its master's metadata every slave_sync_interval
// (SlaveSync, fed the master's address by the registrar).
#pragma once

#include <functional>
#include <memory>
#include <set>
#include <string>

#include "broker/admin_stats_processor.h"
#include "broker/broker_config.h"
#include "broker/broker_config_processor.h"
#include "broker/broker_metrics.h"
#include "broker/broker_stats.h"
#include "broker/client_admin_processor.h"
#include "broker/client_calls.h"
#include "broker/consumer_offset_manager.h"
#include "broker/consumer_offset_processor.h"
#include "broker/consumer_services.h"
#include "broker/ha_status_processor.h"
#include "broker/metadata_export_processor.h"
#include "broker/name_server_registrar.h"
#include "broker/pop_service.h"
#include "broker/pull_hold_service.h"
#include "broker/pull_processor.h"
#include "broker/query_message_processor.h"
#include "broker/replicas_manager.h"
#include "broker/queue_offset_processor.h"
#include "broker/runtime_info_processor.h"
#include "broker/end_transaction_processor.h"
#include "broker/transaction_check_service.h"
#include "broker/send_processor.h"
#include "broker/slave_sync.h"
#include "broker/store_admin_processor.h"
#include "broker/subscription_lookup.h"
#include "broker/topic_admin_processor.h"
#include "broker/topic_config_manager.h"
#include "remoting/acl/access_control.h"
#include "remoting/rpc/rpc_client.h"
#include "remoting/rpc/rpc_server.h"
#include "runtime/log_limiter.h"
#include "store/ha/ha_master.h"
#include "store/ha/ha_slave.h"
#include "store/message_store.h"

namespace ferry::testing {
class BrokerInspector;
}  // namespace ferry::testing

namespace ferry::broker {

class Broker {
 public:
  enum class State : std::uint8_t { created, starting, running, failed, stopping, stopped };

  Broker(Runtime& rt, BrokerConfig config);
  ~Broker();
  Broker(const Broker&) = delete;
  Broker& operator=(const Broker&) = delete;

  // Errors: the store's open errors (corrupt naming the file, io_error), a config/ file and its
  // backup both unusable (corrupt naming them), address_in_use. On error the broker serves
  // nothing (state failed).
  Task<Status> start();
  // Promotion by an operator (FERRY_PROMOTE_SLAVE, `mqadmin promoteSlave`): this running SLAVE
  // becomes the master (brokerId 0) of its group with `role` (ASYNC_MASTER or SYNC_MASTER).
  // Replication and the slave's metadata copying stop; the log is made durable (SYNC_FLUSH) and
  // cut back to its last whole record; delayed delivery starts; the broker registers as brokerId
  // 0 at once (the NameServers drop its slave entry) and takes writes. The role is kept in
  // ha_role.json (ha_role.h) before anything changes. RocketMQ 4.9 has no such operation: run it
  // only once the old master is gone for good, and bring that one back as a slave (docs/operations.md).
  // Errors: invalid_argument (not running, not a slave, `role` not a master role, controller
  // mode: the controllers choose masters there), io_error. A slow disk is waited out
  // (kPromotionDurableWaitsMax waits of syncFlushTimeout each); past that, or after a failed sync,
  // the broker says so at error level and takes writes anyway.
  Task<Status> promote(BrokerRole role);
  static constexpr int kPromotionDurableWaitsMax = 12;
  // Controller mode (enableControllerMode): the broker's role follows the controllers
  // (replicas_manager.h); null otherwise.
  const ReplicasManager* replicas() const { return replicas_.get(); }

  // Spawns start() on the node; failures are logged and kept in start_error().
  void launch();
  // Graceful stop (see above). Idempotent; a broker that is not running just stops.
  Task<void> stop();

  State state() const { return state_; }
  const std::optional<Error>& start_error() const { return start_error_; }
  // Why the running broker stopped itself (state failed afterwards): in controller mode, a
  // CommitLog sync that failed (replicas_manager.h). It gives the master role up first (the
  // controllers elect another in-sync replica; ReplicasManager::resign), then stops as stop()
  // does (the store's shutdown fails, so the abort file stays and the next start recovers); a
  // restart brings it back.
  const std::optional<Error>& failure() const { return failure_; }
  // Called once such a stop has finished (the daemon exits). Set before start().
  void set_failure_handler(std::function<void(const Error&)> h) { failure_handler_ = std::move(h); }
  // "ip:port" clients and NameServers use.
  const std::string& address() const { return address_; }

  // Where config().acl_file_path is read from (before start(); default: the node's FileSystem);
  // `display` names the file in logs. `files` must outlive the broker.
  void set_acl_files(FileSystem& files, std::string display) {
    acl_files_ = &files;
    acl_display_ = std::move(display);
  }
  // The ACL in force (null unless aclEnable and started).
  const remoting::acl::AccessControl* acl() const { return acl_.get(); }

  // Seams for other components.
  void register_processor(std::int32_t code, remoting::Processor p) { server_.register_processor(code, std::move(p)); }
  void set_subscriptions(const SubscriptionLookup& s) { pull_.set_subscriptions(s); }

  const BrokerConfig& config() const { return config_; }
  // Where UPDATE_BROKER_CONFIG (25) saves what it changed (the daemon's broker.conf writer);
  // unset, changes live in memory only. Set before start().
  void set_config_persister(BrokerConfigProcessor::Persister p) { config_admin_.set_persister(std::move(p)); }
  // Read-only views for other components (the simulator's observers, a cluster harness waiting
  // for registration) and for tests: the store, the committed consumer offsets, the NameServer
  // registrar. The rest of a broker's inside is reached by tests through one inspector
  // (tests/support/broker_inspector.h), not through this class.
  const store::MessageStore& store() const { return store_; }
  const ConsumerOffsetManager& offsets() const { return offsets_; }
  // The transaction check service (tests run a round at a chosen time).
  TransactionCheckService& transaction_check() { return transaction_check_; }
  const NameServerRegistrar& registrar() const { return registrar_; }
  // What the broker counts (RocketMQ's BrokerStatsManager; served by GET_BROKER_RUNTIME_INFO).
  const BrokerStats& stats() const { return stats_; }
  // The broker's metrics (docs/operations.md "Monitoring"): the daemon's Prometheus endpoint and
  // the simulator's sampler collect its registry.
  const metrics::Registry& metrics() const { return metrics_.registry(); }
  // The VIP server's "ip:port" (listening only with vip_channel_enable).
  std::string vip_address() const;
  // The address the servers bind: listen_address, else the advertised host.
  std::string bind_host() const;

 private:
  friend class ::ferry::testing::BrokerInspector;

  static BrokerConfig resolve(Runtime& rt, BrokerConfig config);
  // start(): the role a promotion kept (ha_role.h) replaces the configured one.
  Status apply_role_override();
  // A new master serves every topic its log holds: those whose config had not been copied from
  // the old master yet are made from the queues (`why` names the occasion in the log).
  void adopt_replicated_topics(std::string_view why);
  // Controller mode, a new master: the topics this broker learned from replicated data, and those
  // the NameServers know in its cluster that it has no config of, take the queue counts and
  // permission the NameServers route for this group (what the old master registered) before this
  // broker registers as master: a queue never written, or a topic with no message yet, stays in
  // the route. Registers at the end.
  static Task<void> settle_learned_topics(Broker* self, std::shared_ptr<bool> alive);
  // A slave: a message of `topic` in queue `queue` was replicated; its config is made (or its queue
  // count grown) if the metadata copy has not brought it yet, so that the slave serves it.
  void learn_replicated_topic(const std::string& topic, QueueId queue);
  // Controller mode (broker_roles.cc): the ReplicasManager's hooks, and the registrar's start
  // once the first role is known.
  void became_master();
  void became_slave(std::int64_t replica_id);
  // Controller mode without readUnCommitted: bounds what consumers see by the confirm offset (the
  // HA master's under allAckInSyncStateSet with other members, the master's as the HA slave last
  // heard it on a slave; no bound otherwise). Called on each role, set and confirm change.
  void update_visibility_bound();
  void start_registering();
  // GET_BROKER_EPOCH_CACHE (1007): this broker's epochs (RocketMQ's EpochEntryCache); SYSTEM_ERROR
  // outside controller mode.
  static Task<Reply> epoch_cache_request(Broker* self, RequestContext ctx);
  // FERRY_GET_EPOCH_ACKS (10005): the last epoch (0 outside controller mode) and the SEND_OKs by
  // master epoch (BrokerStats::acked_by_epoch).
  static Task<Reply> epoch_acks_request(Broker* self, RequestContext ctx);
  static Task<Reply> promote_request(Broker* self, RequestContext ctx);
  static Task<void> launch_task(Broker* self);
  static Task<void> fail_stop(Broker* self, Error why);
  // Registers every code on `server`; the VIP server gets all but PULL_MESSAGE.
  void register_processors(remoting::RpcServer& server, ServerTag tag);
  Status start_acl();
  // The admin tools' statistics and connection codes (AdminStatsProcessor).
  void register_admin_processors(remoting::RpcServer& server);
  Status start_servers();
  void stop_servers();
  std::optional<std::int64_t> delay_tags_code(std::string_view topic, std::string_view properties,
                                              WallMs store_timestamp_ms) const;

  Runtime& rt_;
  // Not const: a promotion changes broker_role and broker_id (components read them through their
  // const references at each use).
  BrokerConfig config_;
  const std::string host_;
  const std::string address_;
  State state_ = State::created;
  std::optional<Error> start_error_;
  std::optional<Error> failure_;
  std::function<void(const Error&)> failure_handler_;

  store::MessageStore store_;
  store::ha::HaMaster ha_master_;
  store::ha::HaSlave ha_slave_;
  TopicConfigManager topics_;
  ConsumerOffsetManager offsets_;
  PullHoldService hold_;
  BrokerStats stats_;
  BrokerMetrics metrics_;
  NoSubscriptions no_subscriptions_;
  remoting::RpcClient client_;
  NameServerRegistrar registrar_;
  SendProcessor send_;
  EndTransactionProcessor end_transaction_;
  PullProcessor pull_;
  ConsumerOffsetProcessor consumer_offsets_;
  QueueOffsetProcessor queue_offsets_;
  QueryMessageProcessor query_;
  TopicAdminProcessor topic_admin_;
  HaStatusProcessor ha_status_;
  RuntimeInfoProcessor runtime_info_;
  ConsumerServices consumer_services_;  // uses server_ only once started
  MetadataExportProcessor metadata_export_;  // 21, 43, 45: what slaves copy
  AdminStatsProcessor admin_stats_;          // 202, 203, 204, 208, 300, 315, 317: admin tools' statistics
  BrokerConfigProcessor config_admin_;       // 25, 26: settings changed at run time
  StoreAdminProcessor store_admin_;          // 306: cleanExpiredCQ
  SlaveSync slave_sync_;
  remoting::RpcServer server_;
  remoting::RpcServer vip_server_;
  ClientCalls client_calls_;                  // calls to clients over server_ / vip_server_
  ClientAdminProcessor client_admin_;         // 222, 223, 307, 309: the broker asks its clients
  TransactionCheckService transaction_check_;  // 39: asks producers about unresolved half messages
  ReplyPusher reply_pusher_;                   // 326: pushes reply messages to their requesters
  PopService pop_;                             // 200050, 200051, 200053, 200151: POP consumption
  std::unique_ptr<ReplicasManager> replicas_;  // controller mode only
  // Topics whose config was made from replicated data (a slave before its metadata copy).
  std::set<std::string> learned_topics_;
  LogLimiter learn_topic_log_;  // replicated topics that cannot be created (a line per message else), by Errc
  // A new master asking the NameServers about its learned topics: registrations wait.
  bool settling_topics_ = false;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
  bool registering_ = false;                   // the registrar's loop runs
  FileSystem* acl_files_ = nullptr;
  std::string acl_display_;
  std::unique_ptr<remoting::acl::AccessControl> acl_;
};

}  // namespace ferry::broker
