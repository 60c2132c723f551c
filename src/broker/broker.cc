#include "broker/broker.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "broker/ha_role.h"
#include "common/delay_levels.h"
#include "common/message.h"
#include "common/message_const.h"
#include "common/names.h"
#include "common/properties.h"
#include "remoting/header/ha_admin_header.h"
#include "remoting/request_code.h"
#include "remoting/response_code.h"
#include "store/property_scan.h"

namespace ferry::broker {

namespace rc = remoting::request_code;
using remoting::RequestContext;

namespace {

std::string host_of(Runtime& rt, const BrokerConfig& c) {
  return c.broker_ip1.empty() ? rt.network().host() : c.broker_ip1;
}

}  // namespace

BrokerConfig Broker::resolve(Runtime& rt, BrokerConfig config) {
  const std::string host = host_of(rt, config);
  auto store_host = HostPort::parse(fmt::format("{}:{}", host, config.listen_port));
  FERRY_ASSERT(store_host.ok(), "broker address {}:{} does not parse: {}", host, config.listen_port,
               store_host.ok() ? "" : store_host.error().to_string());
  config.store.store_host = *store_host;
  config.store.flush_mode = config.flush_disk_type;
  // Controller mode: a slave refusing writes until the controllers name its role.
  if (config.enable_controller_mode) config.broker_role = BrokerRole::slave;
  // SendProcessor decodes its header straight from a binary header's bytes (no extFields map).
  config.rpc.raw_ext_fields_requests = {rc::SEND_MESSAGE_V2, rc::SEND_BATCH_MESSAGE};
  FERRY_ASSERT(config.default_topic_queue_nums > 0, "defaultTopicQueueNums {}", config.default_topic_queue_nums);
  return config;
}

Broker::Broker(Runtime& rt, BrokerConfig config)
    : rt_(rt),
      config_(resolve(rt, std::move(config))),
      host_(host_of(rt, config_)),
      address_(fmt::format("{}:{}", host_, config_.listen_port)),
      store_(rt, config_.store),
      ha_master_(rt, store_, config_.ha),
      ha_slave_(rt, store_, config_.ha),
      topics_(rt, config_),
      offsets_(rt, config_),
      hold_(rt, config_, store_),
      stats_(rt.now(), config_.stats_keys_max),
      metrics_(rt, config_),
      client_(rt),
      registrar_(rt, config_, topics_, client_, address_, fmt::format("{}:{}", host_, config_.listen_port + 1)),
      send_(rt, config_, store_, ha_master_, topics_, stats_, metrics_),
      end_transaction_(rt, config_, store_, topics_),
      pull_(rt, config_, store_, topics_, offsets_, hold_, no_subscriptions_, stats_, metrics_),
      consumer_offsets_(config_, store_, topics_, offsets_),
      queue_offsets_(store_),
      query_(store_),
      topic_admin_(config_, topics_, offsets_),
      ha_status_(rt, config_, store_, ha_master_, ha_slave_),
      runtime_info_(rt, config_, store_, stats_, ha_status_, rt.wall_ms()),
      consumer_services_(rt, config_, store_, topics_, server_),
      metadata_export_(topics_, offsets_, consumer_services_.schedule()),
      admin_stats_(rt, config_,
                   AdminStatsProcessor::Sources{store_, topics_, offsets_, consumer_services_.consumers(),
                                                consumer_services_.producers(), consumer_services_.groups(), stats_},
                   address_),
      config_admin_(rt, config_, [this] { registrar_.trigger(); }),
      store_admin_(rt, store_),
      slave_sync_(rt, config_, client_, registrar_,
                  SlaveSync::Tables{topics_, offsets_, consumer_services_.groups(), consumer_services_.schedule()},
                  address_, config_.broker_role == BrokerRole::slave),
      server_(rt, config_.rpc),
      vip_server_(rt, config_.rpc),
      client_calls_(server_, vip_server_),
      client_admin_(rt, config_, store_, topics_, offsets_, consumer_services_.consumers(), client_calls_),
      transaction_check_(rt, config_,
                         TransactionCheckOptions{.check_interval = config_.transaction_check_interval,
                                                 .transaction_timeout = config_.transaction_timeout,
                                                 .check_max = config_.transaction_check_max},
                         store_, offsets_, consumer_services_.producers(), client_calls_, topics_),
      reply_pusher_(rt, config_, consumer_services_.producers(), client_calls_),
      pop_(rt, config_, store_, topics_, offsets_, consumer_services_.groups(), consumer_services_.subscriptions()) {
  if (!config_.credentials.empty()) {
    client_.set_outgoing_hook([creds = config_.credentials](remoting::RemotingCommand& r) { remoting::acl::sign(r, creds); });
  }
  register_processors(server_, ServerTag::main);
  register_processors(vip_server_, ServerTag::vip);
  pull_.set_subscriptions(consumer_services_.subscriptions());
  send_.set_subscription_groups(&consumer_services_.groups());
  send_.set_reply_pusher(&reply_pusher_);
  send_.set_timer_clock([this] { return consumer_services_.timers().now_ms(); });
  end_transaction_.set_timer_clock([this] { return consumer_services_.timers().now_ms(); });
  consumer_services_.group_admin().set_offset_remover([this](std::string_view group) { offsets_.remove_group(group); });
  // Before the store opens: recovery re-dispatches what the ConsumeQueues miss, and a schedule
  // queue's units must carry their delivery time then too (not the tag's hash).
  store_.set_tags_code_hook([this](std::string_view topic, std::string_view props, WallMs ts) {
    return delay_tags_code(topic, props, ts);
  });
  server_.register_processor(rc::GET_BROKER_EPOCH_CACHE,
                             [this](RequestContext ctx) { return epoch_cache_request(this, std::move(ctx)); });
  server_.register_processor(rc::FERRY_GET_EPOCH_ACKS,
                             [this](RequestContext ctx) { return epoch_acks_request(this, std::move(ctx)); });
  if (config_.enable_controller_mode) {
    replicas_ = std::make_unique<ReplicasManager>(
        rt, client_, config_, address_, store_, ha_master_, ha_slave_,
        ReplicasManager::Hooks{[this] { became_master(); }, [this](std::int64_t id) { became_slave(id); },
                               [this](const Error& e) { rt_.spawn(fail_stop(this, e), "broker-fail-stop"); }});
    send_.set_write_fence([this] { return replicas_->write_fence(); });
    send_.set_epoch_source([this] { return replicas_->master_epoch(); });
    ha_master_.set_confirm_listener([this] { update_visibility_bound(); });
    ha_slave_.set_confirm_listener([this] { update_visibility_bound(); });
    server_.register_processor(rc::NOTIFY_BROKER_ROLE_CHANGED,
                               [this](RequestContext ctx) -> Task<std::optional<remoting::RemotingCommand>> {
                                 replicas_->handle_notify(ctx.request);
                                 co_return std::nullopt;  // oneway
                               });
  }
  metrics_.bind(BrokerMetrics::Sources{
      store_, ha_master_, ha_slave_, ha_status_, topics_, offsets_, consumer_services_.consumers(), consumer_services_.producers(),
      consumer_services_.groups(), [this]() -> const ReplicasManager* { return replicas_.get(); },
      [this] { return server_.refused_connections() + vip_server_.refused_connections(); },
      [this] {
        const TimerMessageService& t = consumer_services_.timers();
        return BrokerMetrics::TimerFigures{t.pending(), t.delivered(), t.wheel_memory_bytes(), t.timer_log_bytes()};
      },
      [this] {
        const PopReviveService& r = pop_.revive();
        return BrokerMetrics::PopFigures{r.open_count(), r.revived_messages(), pop_.fifo_batches()};
      }});
  metrics_.rpc().observe(server_);
  metrics_.rpc().observe(vip_server_);
  consumer_services_.send_back().set_dlq_observer(
      [this](std::string_view group, std::string_view topic) { metrics_.on_dlq(group, topic); });
  pop_.revive().set_dlq_observer([this](std::string_view group, std::string_view topic) { metrics_.on_dlq(group, topic); });
}

Broker::~Broker() {
  *alive_ = false;
  stop_servers();  // members are going away: no notifications now
  client_.shutdown();
}

std::string Broker::vip_address() const { return fmt::format("{}:{}", host_, config_.listen_port - 2); }

Status Broker::start_acl() {
  if (!config_.acl_enable) return Status();
  FileSystem& files = acl_files_ != nullptr ? *acl_files_ : rt_.fs();
  acl_ = std::make_unique<remoting::acl::AccessControl>(rt_, files, config_.acl_file_path,
                                                        acl_display_.empty() ? config_.acl_file_path : acl_display_,
                                                        remoting::acl::broker_policy());
  Status loaded = acl_->load();
  if (!loaded) {
    acl_.reset();
    return Error(loaded.error().code, "aclEnable=true but " + loaded.error().detail);
  }
  auto guard = [this](const remoting::Channel& ch, const remoting::RemotingCommand& r) { return acl_->check(ch.peer().host, r); };
  server_.set_request_guard(guard);
  vip_server_.set_request_guard(guard);
  acl_->start_watching();
  return Status();
}

std::string Broker::bind_host() const { return config_.listen_address.empty() ? host_ : config_.listen_address; }

Status Broker::start_servers() {
  FERRY_TRY(start_acl());
  FERRY_TRY(server_.start(Endpoint{bind_host(), config_.listen_port}));
  server_.on_channel_closed([this](const std::shared_ptr<remoting::Channel>& ch) {
    consumer_services_.channel_closed(ch, ServerTag::main);
  });
  if (!config_.vip_channel_enable) return Status();
  FERRY_ASSERT(config_.listen_port >= 2, "listenPort {} leaves no VIP port", config_.listen_port);
  Status vip = vip_server_.start(Endpoint{bind_host(), static_cast<std::uint16_t>(config_.listen_port - 2)});
  if (!vip) {
    stop_servers();
    return vip;
  }
  vip_server_.on_channel_closed([this](const std::shared_ptr<remoting::Channel>& ch) {
    consumer_services_.channel_closed(ch, ServerTag::vip);
  });
  return Status();
}

void Broker::stop_servers() {
  server_.on_channel_closed(nullptr);  // a stopping broker notifies no consumer group
  vip_server_.on_channel_closed(nullptr);
  server_.stop();
  vip_server_.stop();
  if (acl_) acl_->stop();
}

void Broker::register_processors(remoting::RpcServer& server, ServerTag tag) {
  consumer_services_.register_processors(server, tag);
  pop_.register_processors(server);
  for (std::int32_t code : {rc::SEND_MESSAGE, rc::SEND_MESSAGE_V2, rc::SEND_BATCH_MESSAGE, rc::SEND_REPLY_MESSAGE,
                            rc::SEND_REPLY_MESSAGE_V2}) {
    server.register_processor(code, [this](RequestContext ctx) { return send_.process(std::move(ctx)); });
  }
  server.register_processor(rc::END_TRANSACTION, [this](RequestContext ctx) { return end_transaction_.process(std::move(ctx)); });
  if (tag == ServerTag::main) {
    server.register_processor(rc::PULL_MESSAGE, [this](RequestContext ctx) { return pull_.process(std::move(ctx)); });
  }
  server.register_processor(rc::QUERY_CONSUMER_OFFSET,
                             [this](RequestContext ctx) { return consumer_offsets_.query(std::move(ctx)); });
  server.register_processor(rc::UPDATE_CONSUMER_OFFSET,
                             [this](RequestContext ctx) { return consumer_offsets_.update(std::move(ctx)); });
  server.register_processor(rc::GET_MAX_OFFSET,
                             [this](RequestContext ctx) { return queue_offsets_.max_offset(std::move(ctx)); });
  server.register_processor(rc::GET_MIN_OFFSET,
                             [this](RequestContext ctx) { return queue_offsets_.min_offset(std::move(ctx)); });
  server.register_processor(rc::SEARCH_OFFSET_BY_TIMESTAMP,
                             [this](RequestContext ctx) { return queue_offsets_.search_by_timestamp(std::move(ctx)); });
  server.register_processor(rc::GET_EARLIEST_MSG_STORETIME,
                             [this](RequestContext ctx) { return queue_offsets_.earliest_store_time(std::move(ctx)); });
  server.register_processor(rc::QUERY_MESSAGE, [this](RequestContext ctx) { return query_.query(std::move(ctx)); });
  server.register_processor(rc::VIEW_MESSAGE_BY_ID, [this](RequestContext ctx) { return query_.view(std::move(ctx)); });
  server.register_processor(rc::UPDATE_AND_CREATE_TOPIC,
                             [this](RequestContext ctx) { return topic_admin_.create_or_update(std::move(ctx)); });
  server.register_processor(kDeleteTopicInBroker,
                             [this](RequestContext ctx) { return topic_admin_.remove(std::move(ctx)); });
  if (tag == ServerTag::main) {
    server.register_processor(rc::FERRY_PROMOTE_SLAVE, [this](RequestContext ctx) { return promote_request(this, std::move(ctx)); });
  }
  server.register_processor(rc::GET_BROKER_RUNTIME_INFO,
                             [this](RequestContext ctx) { return runtime_info_.process(std::move(ctx)); });
  server.register_processor(rc::GET_BROKER_HA_STATUS,
                             [this](RequestContext ctx) { return ha_status_.process(std::move(ctx)); });
  server.register_processor(rc::GET_ALL_TOPIC_CONFIG,
                             [this](RequestContext ctx) { return metadata_export_.all_topics(std::move(ctx)); });
  server.register_processor(rc::GET_ALL_CONSUMER_OFFSET,
                             [this](RequestContext ctx) { return metadata_export_.all_consumer_offsets(std::move(ctx)); });
  server.register_processor(rc::GET_ALL_DELAY_OFFSET,
                             [this](RequestContext ctx) { return metadata_export_.all_delay_offsets(std::move(ctx)); });
  // Broker-to-client requests (client_admin_processor.h).
  server.register_processor(rc::INVOKE_BROKER_TO_RESET_OFFSET,
                            [this](RequestContext ctx) { return client_admin_.reset_offset(std::move(ctx)); });
  server.register_processor(rc::INVOKE_BROKER_TO_GET_CONSUMER_STATUS,
                            [this](RequestContext ctx) { return client_admin_.consumer_status(std::move(ctx)); });
  server.register_processor(rc::GET_CONSUMER_RUNNING_INFO,
                            [this](RequestContext ctx) { return client_admin_.running_info(std::move(ctx)); });
  server.register_processor(rc::CONSUME_MESSAGE_DIRECTLY,
                            [this](RequestContext ctx) { return client_admin_.consume_directly(std::move(ctx)); });
  register_admin_processors(server);
}

void Broker::register_admin_processors(remoting::RpcServer& server) {
  server.register_processor(rc::GET_TOPIC_STATS_INFO,
                             [this](RequestContext ctx) { return admin_stats_.topic_stats(std::move(ctx)); });
  server.register_processor(rc::GET_CONSUMER_CONNECTION_LIST,
                             [this](RequestContext ctx) { return admin_stats_.consumer_connections(std::move(ctx)); });
  server.register_processor(rc::GET_PRODUCER_CONNECTION_LIST,
                             [this](RequestContext ctx) { return admin_stats_.producer_connections(std::move(ctx)); });
  server.register_processor(rc::GET_CONSUME_STATS,
                             [this](RequestContext ctx) { return admin_stats_.consume_stats(std::move(ctx)); });
  server.register_processor(rc::QUERY_TOPIC_CONSUME_BY_WHO,
                            [this](RequestContext ctx) { return admin_stats_.topic_consumed_by(std::move(ctx)); });
  server.register_processor(rc::VIEW_BROKER_STATS_DATA,
                            [this](RequestContext ctx) { return admin_stats_.view_stats(std::move(ctx)); });
  server.register_processor(rc::GET_BROKER_CONSUME_STATS,
                            [this](RequestContext ctx) { return admin_stats_.broker_consume_stats(std::move(ctx)); });
  server.register_processor(rc::UPDATE_BROKER_CONFIG,
                             [this](RequestContext ctx) { return config_admin_.update(std::move(ctx)); });
  server.register_processor(rc::GET_BROKER_CONFIG,
                             [this](RequestContext ctx) { return config_admin_.get(std::move(ctx)); });
  server.register_processor(rc::CLEAN_EXPIRED_CONSUMEQUEUE, [this](RequestContext ctx) {
    return store_admin_.clean_expired_consume_queue(std::move(ctx));
  });
}

std::optional<std::int64_t> Broker::delay_tags_code(std::string_view topic, std::string_view properties,
                                                    WallMs store_timestamp_ms) const {
  if (topic == kTimerTopic) {  // a timer record: its due time
    const auto out = store::find_property(properties, prop::kTimerOutMs);
    if (!out) return std::nullopt;
    std::int64_t due = 0;
    const auto [p, ec] = std::from_chars(out->data(), out->data() + out->size(), due);
    if (ec != std::errc() || p != out->data() + out->size()) return std::nullopt;
    return due;
  }
  if (topic != kScheduleTopic) return std::nullopt;
  const auto text = store::find_property(properties, prop::kDelay);
  if (!text) return std::nullopt;
  auto level = parse_int32_property(prop::kDelay, *text);
  if (!level || *level <= 0) return std::nullopt;
  const auto& table = config_.message_delay_levels;
  const std::size_t i = static_cast<std::size_t>(std::min<std::int64_t>(*level, static_cast<std::int64_t>(table.size())) - 1);
  return store_timestamp_ms + to_ms(table[i]);
}

Task<Status> Broker::start() {
  FERRY_ASSERT(state_ == State::created, "Broker::start in state {}", static_cast<int>(state_));
  state_ = State::starting;
  if (Status role = config_.enable_controller_mode ? Status() : apply_role_override(); !role.ok()) {
    state_ = State::failed;
    start_error_ = role.error();
    rt_.log().error("broker {}: start failed: {}", config_.broker_name, role.error().to_string());
    co_return role;
  }
  // Controller mode without readUnCommitted: what recovery finds past the queues' end may be a
  // tail the group never confirmed (a failover may cut it), so nothing new is visible until the
  // role's confirm offset is known (update_visibility_bound). RocketMQ 5 keeps its confirmOffset
  // in the checkpoint instead; the queues' end is a bound no older than that. The store numbers
  // new messages after the held records.
  if (replicas_ && !config_.read_uncommitted) store_.set_visibility_bound(PhysicalOffset{0});
  Status opened = co_await store_.open();
  Status loaded = opened ? topics_.load() : opened;
  if (loaded) loaded = offsets_.load();
  if (loaded) loaded = consumer_services_.load();
  if (loaded && replicas_) loaded = replicas_->open();
  if (loaded) loaded = start_servers();
  if (loaded) {
    loaded = ha_master_.start(Endpoint{bind_host(), static_cast<std::uint16_t>(config_.listen_port + 1)});
    if (!loaded) stop_servers();
  }
  if (!loaded) {
    state_ = State::failed;
    start_error_ = loaded.error();
    rt_.log().error("broker {}: start failed: {}", config_.broker_name, loaded.error().to_string());
    co_return loaded;
  }
  store_.set_arrival_listener([this](const std::string& topic, QueueId queue, QueueOffset max) {
    // A slave learns a topic with its data (its metadata copy may come only 10 s later).
    if (config_.broker_role == BrokerRole::slave) learn_replicated_topic(topic, queue);
    hold_.on_arrival(topic, queue, max);
    consumer_services_.on_arrival(topic, queue);
    pop_.on_arrival(topic);
  });
  topics_.set_change_listener([this] {
    if (!settling_topics_) registrar_.trigger();
  });
  store_.set_append_listener([this](PhysicalOffset end) { ha_master_.on_appended(end); });
  store_.start();
  // Clients may still trust locks this broker had before it stopped: none for one lock lifetime.
  // A store that served before holds messages or a checkpoint. (Not its abort file alone: a start
  // that failed, e.g. on a port in use, leaves one without having served anybody. A broker that
  // lost power in its first seconds, before anything it stored was flushed, looks new.)
  const store::RecoveryInfo& lived = store_.recovery();
  if (lived.checkpoint.has_value() || store_.max_phy_offset().value() > 0) {
    consumer_services_.locks().hold_off_for(config_.rebalance_lock_max_live_time);
  }
  if (config_.broker_role == BrokerRole::slave) {
    if (!config_.ha_master_address.empty() && !replicas_) ha_slave_.set_master(config_.ha_master_address);
    rt_.spawn(ha_slave_.run(), "ha-slave");
  }
  // Controller mode registers with the NameServers once the controllers named a role.
  if (!replicas_) start_registering();
  rt_.spawn(offsets_.run_persist_loop(), "persist-offsets");
  rt_.spawn(hold_.run_check_loop(), "pull-hold-check");
  rt_.spawn(transaction_check_.run_loop(), "transaction-check");
  consumer_services_.start();
  pop_.start(config_.broker_role != BrokerRole::slave);
  // What the NameServers say about the group's master (a slave's registrar learns it).
  registrar_.set_on_master_changed([this] {
    slave_sync_.master_changed();
    // haMasterAddress, when set, pins the replication source; else the NameServers name it.
    if (config_.broker_role == BrokerRole::slave && config_.ha_master_address.empty() && !replicas_) {
      ha_slave_.set_master(registrar_.master_ha_address());
    }
  });
  rt_.spawn(slave_sync_.run_loop(), "slave-sync");
  if (replicas_) replicas_->start();
  state_ = State::running;
  rt_.log().info("broker {} ({}, id {}) serving at {}; bound to {}:{} (HA {}){}{}", config_.broker_name,
                 config_.broker_cluster_name, config_.broker_id, address_, bind_host(), config_.listen_port,
                 config_.listen_port + 1, config_.vip_channel_enable ? ", VIP port also" : "",
                 config_.acl_enable ? "; ACL on" : "");
  co_return Status();
}

Status Broker::apply_role_override() {
  auto promoted = load_role_override(rt_, config_.config_dir);
  if (!promoted.ok()) return std::move(promoted).error();
  if (!promoted->has_value()) return {};
  const RoleOverride& o = **promoted;
  if (config_.broker_role != o.role || config_.broker_id != o.broker_id) {
    rt_.log().warn("broker {}: {} says this broker was promoted to {} (brokerId {}) at {} ms; it wins over the "
                   "configured {} (brokerId {}). Update broker.conf and delete the file to make it permanent.",
                   config_.broker_name, role_override_path(config_.config_dir), role_name(o.role), o.broker_id,
                   o.promoted_at_ms, role_name(config_.broker_role), config_.broker_id);
  }
  config_.broker_role = o.role;
  config_.broker_id = o.broker_id;
  slave_sync_.set_enabled(false);
  return {};
}

Task<Status> Broker::promote(BrokerRole role) {
  if (state_ != State::running) co_return Error(Errc::invalid_argument, "the broker is not running");
  if (replicas_) {
    co_return Error(Errc::invalid_argument,
                    "controller mode: the controllers choose the master (mqadmin electMaster asks them to)");
  }
  if (config_.broker_role != BrokerRole::slave) {
    co_return Error(Errc::invalid_argument, fmt::format("the broker is already a master ({})", role_name(config_.broker_role)));
  }
  if (role == BrokerRole::slave) co_return Error(Errc::invalid_argument, "promote to SYNC_MASTER or ASYNC_MASTER");
  const RoleOverride o{role, 0, rt_.wall_ms()};
  Status saved = co_await save_role_override(rt_, config_.config_dir, o);
  if (!saved.ok()) co_return saved;
  ha_slave_.stop();
  slave_sync_.set_enabled(false);
  // What was received becomes this log's history: durable first under SYNC_FLUSH (and indexed
  // then), and a partial record a link left behind cut.
  // A slow disk is waited out (each wait ends after syncFlushTimeout), up to kPromotionDurableWaitsMax.
  if (config_.flush_disk_type == store::FlushMode::sync_flush) {
    store::PutStatus durable = co_await store_.wait_durable(store_.max_phy_offset());
    for (int waits = 1; durable == store::PutStatus::flush_disk_timeout && !store_.sync_failed() &&
                        waits < kPromotionDurableWaitsMax;
         ++waits) {
      rt_.log().warn("promotion: the received log is not durable yet (a slow disk); waiting again");
      durable = co_await store_.wait_durable(store_.max_phy_offset());
    }
    if (std::optional<std::string> refused = store_.sync_failed() ? store_.write_refusal() : std::nullopt) {
      rt_.log().error("promotion: the received log is not durable: {}", *refused);
    } else if (durable != store::PutStatus::ok) {
      rt_.log().error("promotion: the received log is not durable ({}); the broker takes writes anyway",
                      store::put_status_name(durable));
    }
  }
  if (Status cut = store_.truncate_to_indexed(); !cut.ok()) co_return cut;
  const std::int64_t old_id = config_.broker_id;
  config_.broker_role = role;
  config_.broker_id = 0;
  consumer_services_.locks().hold_off_for(config_.rebalance_lock_max_live_time);  // the old master's holders
  consumer_services_.schedule().start();
  consumer_services_.timers().set_delivering(true);
  pop_.set_master(true);
  adopt_replicated_topics("promotion");
  topics_.touch();  // a new dataVersion: the NameServers take this broker's topics as the master's
  registrar_.trigger();
  rt_.log().warn("broker {}: promoted from slave (brokerId {}) to {} at log offset {}", config_.broker_name, old_id,
                 role_name(role), store_.max_phy_offset().value());
  co_return Status();
}

void Broker::learn_replicated_topic(const std::string& topic, QueueId queue) {
  const TopicConfig* known = topics_.find(topic);
  if (known != nullptr && known->read_queue_nums > queue.value() && known->write_queue_nums > queue.value()) return;
  TopicConfig tc = known != nullptr ? *known : TopicConfig{};
  tc.topic_name = topic;
  tc.read_queue_nums = std::max(tc.read_queue_nums, queue.value() + 1);
  tc.write_queue_nums = std::max(tc.write_queue_nums, queue.value() + 1);
  if (known == nullptr) tc.perm = perm::kReadWrite;
  if (Status put = topics_.put(tc); !put.ok()) {
    if (auto held = learn_topic_log_.admit(rt_.now(), static_cast<std::int64_t>(put.error().code))) {
      rt_.log().error("slave: topic {} arrived with the log but cannot be created: {}{}", topic, put.error().to_string(),
                      held_back_note(*held));
    }
    return;
  }
  learned_topics_.insert(topic);
  rt_.log().info("slave: topic {} learned from the replicated log ({} queues) before the metadata copy", topic,
                 tc.read_queue_nums);
}

void Broker::adopt_replicated_topics(std::string_view why) {
  // Topics whose messages arrived before their config was copied (SlaveSync runs every 10 s):
  // made from the queues the log holds, so that everything replicated can be read.
  for (const auto& [topic, queues] : store_.queue_counts()) {
    if (topics_.find(topic) != nullptr) continue;
    TopicConfig tc;
    tc.topic_name = topic;
    tc.read_queue_nums = queues;
    tc.write_queue_nums = queues;
    tc.perm = perm::kReadWrite;
    if (Status put = topics_.put(tc); put.ok()) {
      learned_topics_.insert(topic);
      rt_.log().warn("{}: topic {} had no config on this slave; created with {} queues", why, topic, queues);
    } else {
      rt_.log().error("{}: topic {} cannot be created: {}", why, topic, put.error().to_string());
    }
  }
}

Task<Reply> Broker::promote_request(Broker* self, RequestContext ctx) {
  auto h = remoting::PromoteSlaveRequestHeader::from_fields(ctx.request.ext_fields);
  if (!h.ok()) co_return bad_header(ctx.request, h.error());
  const auto role = parse_role(h->broker_role);
  if (!role || *role == BrokerRole::slave) {
    co_return reply(ctx.request, remoting::response_code::SYSTEM_ERROR,
                    fmt::format("brokerRole \"{}\": promote to SYNC_MASTER or ASYNC_MASTER", h->broker_role));
  }
  Status done = co_await self->promote(*role);
  if (!done.ok()) co_return reply(ctx.request, remoting::response_code::SYSTEM_ERROR, done.error().to_string());
  co_return reply(ctx.request, remoting::response_code::SUCCESS);
}

Task<void> Broker::launch_task(Broker* self) {
  Status s = co_await self->start();
  (void)s;  // start() logged and recorded it
}

void Broker::launch() { rt_.spawn(launch_task(this), "broker-start"); }

Task<void> Broker::fail_stop(Broker* self, Error why) {
  if (self->state_ != State::running) co_return;
  self->rt_.log().error("broker {} stops: {} (restart it: the store recovers what was durable)",
                        self->config_.broker_name, why.to_string());
  self->failure_ = why;
  if (self->replicas_) {
    Status resigned = co_await self->replicas_->resign();
    if (!resigned) self->rt_.log().warn("broker {} stops without handing over: {}", self->config_.broker_name,
                                        resigned.error().to_string());
  }
  co_await self->stop();
  self->state_ = State::failed;
  if (self->failure_handler_) self->failure_handler_(why);
}

Task<void> Broker::stop() {
  if (state_ == State::stopping || state_ == State::stopped) co_return;
  const bool was_running = state_ == State::running;
  state_ = State::stopping;
  *alive_ = false;
  if (replicas_) replicas_->stop();
  if (was_running) {
    registrar_.stop();
    slave_sync_.stop();
    co_await registrar_.unregister_all();
    hold_.stop();
  }
  stop_servers();
  client_.shutdown();
  ha_slave_.stop();
  ha_master_.stop();
  if (was_running) {
    pop_.stop();  // commits the revive progress, persisted with the offsets below
    Status o = co_await offsets_.persist();
    if (!o) rt_.log().error("broker stop: persisting offsets failed: {}", o.error().to_string());
    Task<void> consumers_stopped = consumer_services_.stop();
    co_await std::move(consumers_stopped);
    Status t = co_await topics_.persist();
    if (!t) rt_.log().error("broker stop: persisting topics failed: {}", t.error().to_string());
    Status s = co_await store_.shutdown();
    if (!s) rt_.log().error("broker stop: store shutdown failed: {}", s.error().to_string());
  }
  state_ = State::stopped;
  rt_.log().info("broker {} stopped", config_.broker_name);
}

}  // namespace ferry::broker
