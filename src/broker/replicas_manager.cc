#include "broker/replicas_manager.h"

#include <fmt/format.h>
#include <fmt/ranges.h>


namespace ferry::broker {

namespace {

// A file beside the store (whose root is "" when the store is the node's data root).
std::string store_file(const BrokerConfig& c, std::string_view name) {
  return c.store.root.empty() ? std::string(name) : c.store.root + "/" + std::string(name);
}

ControllerClientConfig client_config(const BrokerConfig& c, const std::string& broker_addr) {
  ControllerClientConfig out;
  out.cluster_name = c.broker_cluster_name;
  out.broker_name = c.broker_name;
  out.broker_addr = broker_addr;
  out.controller_addrs = c.controller_addr;
  out.heartbeat_interval = c.broker_heartbeat_interval;
  out.heartbeat_timeout = c.controller_heartbeat_timeout;
  out.sync_metadata_period = c.sync_broker_metadata_period;
  out.election_priority = c.broker_election_priority;
  out.identity_path = store_file(c, "brokerIdentity");  // RocketMQ's storePathBrokerIdentity
  return out;
}

// The master's HA address: its broker port + 1 (Ferry's HA port is always listenPort + 1).
std::optional<std::string> ha_address_of(const std::string& broker_addr) {
  auto ep = Endpoint::parse(broker_addr);
  if (!ep.ok() || ep->port == 0 || ep->port == 65535) return std::nullopt;
  return fmt::format("{}:{}", ep->host, ep->port + 1);
}

}  // namespace

ReplicasManager::ReplicasManager(Runtime& rt, remoting::RpcClient& rpc, const BrokerConfig& config,
                                 std::string broker_addr, store::MessageStore& store, store::ha::HaMaster& ha_master,
                                 store::ha::HaSlave& ha_slave, Hooks hooks)
    : rt_(rt),
      config_(config),
      store_(store),
      ha_master_(ha_master),
      ha_slave_(ha_slave),
      hooks_(std::move(hooks)),
      epochs_(rt, store_file(config, store::kEpochFileName)),
      client_(
          rt, rpc, client_config(config, broker_addr),
          [this] {
            return ControllerClient::Progress{epochs_.last_epoch(), store_.max_phy_offset().value(),
                                              confirm_offset().value()};
          },
          [this](const GroupView& v) { on_view(v); }),
      apply_wake_(rt) {}

ReplicasManager::~ReplicasManager() { *alive_ = false; }

Status ReplicasManager::open() {
  FERRY_TRY(epochs_.load(store_.max_phy_offset()));
  ha_master_.set_epochs(&epochs_);
  ha_slave_.set_epochs(&epochs_, -1);
  return {};
}

void ReplicasManager::start() {
  rt_.spawn(register_loop(this, alive_), "controller-register");
  rt_.spawn(apply_loop(this, alive_), "controller-roles");
  rt_.spawn(sync_state_set_loop(this, alive_), "sync-state-set");
  rt_.spawn(storage_loop(this, alive_), "controller-storage");
}

void ReplicasManager::stop() {
  *alive_ = false;
  client_.stop();
  apply_wake_.wake();
}

Task<Status> ReplicasManager::resign() {
  *alive_ = false;
  apply_wake_.wake();
  // RocketMQ's controllers scan every scanNotActiveBrokerInterval (5 s): two scans after the
  // heartbeat timeout (a controller that missed the last heartbeat) is the longest wait.
  Task<Status> resigned = client_.resign(config_.controller_heartbeat_timeout + std::chrono::seconds(10));
  co_return co_await std::move(resigned);
}

PhysicalOffset ReplicasManager::confirm_offset() const {
  return role_ == Role::master ? ha_master_.confirm_offset() : ha_slave_.confirm_offset();
}

std::optional<std::string> ReplicasManager::write_fence() const {
  if (role_ != Role::master) {
    return fmt::format("the controllers have not named this broker master of {} (replica {}, master {} in epoch {})",
                       config_.broker_name, client_.replica_id(), client_.view().master_id, client_.view().master_epoch);
  }
  if (client_.view().master_epoch > epoch_) {
    return fmt::format("master epoch {} is stale: the controllers are at epoch {}", epoch_, client_.view().master_epoch);
  }
  const auto last = client_.last_answer();
  const Duration since = last ? rt_.clock().now() - *last : Duration::max();
  if (since > config_.controller_heartbeat_timeout) {
    return fmt::format("no controller has answered for {} ms (the lease is {} ms): another master may be elected",
                       last ? to_ms(since) : -1, to_ms(config_.controller_heartbeat_timeout));
  }
  return std::nullopt;
}

Task<void> ReplicasManager::register_loop(ReplicasManager* self, std::shared_ptr<bool> alive) {
  for (int attempt = 1;; ++attempt) {
    Status st = co_await self->client_.start(std::chrono::seconds(10));
    if (!*alive) co_return;
    if (st.ok()) break;
    // Replicas starting together race for the same next id (all but one are refused): the first
    // retries come soon, at random (RocketMQ: 5 tries under a second apart), then every 5 s.
    const Duration pause = attempt <= 5 ? std::chrono::milliseconds(self->rt_.random().between(100, 1000)) : kRegisterRetry;
    if (auto held = self->register_log_.admit(self->rt_.now(), static_cast<std::int64_t>(st.error().code))) {
      self->rt_.log().warn("controller mode: registering {} with the controllers failed: {} (again in {} ms){}",
                           self->config_.broker_name, st.error().to_string(), to_ms(pause), held_back_note(*held));
    }
    co_await self->rt_.sleep(pause);
    if (!*alive) co_return;
  }
  self->registered_ = true;
  self->ha_slave_.set_epochs(&self->epochs_, self->client_.replica_id());
  self->rt_.log().info("controller mode: {} registered as replica {}", self->config_.broker_name,
                       self->client_.replica_id());
  // The view adopted during registration (if any) came before the id was known to the HA side.
  self->on_view(self->client_.view());
}

void ReplicasManager::on_view(const GroupView& v) {
  if (!registered_ && client_.replica_id() < 0) return;
  const std::int64_t self_id = client_.replica_id();
  if (v.master_id == self_id && v.master_id >= 0) {
    pending_master_ = v;
    apply_wake_.wake();
    return;
  }
  pending_master_.reset();
  to_slave(v);
}

void ReplicasManager::to_slave(const GroupView& v) {
  const std::int64_t id = client_.replica_id();
  const bool was_master = role_ == Role::master;
  const bool changed = role_ != Role::slave || epoch_ != v.master_epoch;
  role_ = Role::slave;
  epoch_ = v.master_epoch;
  if (hooks_.became_slave) hooks_.became_slave(id);
  const auto ha = v.master_id >= 0 ? ha_address_of(v.master_address) : std::nullopt;
  ha_slave_.set_epochs(&epochs_, id);
  ha_slave_.set_master(ha);
  // Kept apart by whether it was master: losing the master role is always news. Otherwise a
  // peer's NOTIFY_BROKER_ROLE_CHANGED with ever newer epochs would write a line each.
  if (changed) {
    if (auto held = slave_log_.admit(rt_.now(), was_master ? 1 : 0)) {
      rt_.log().warn("controller mode: {} replica {} is a slave{} in epoch {}; master {} at {}{}", config_.broker_name,
                     id, was_master ? " (was master)" : "", v.master_epoch, v.master_id,
                     v.master_address.empty() ? "none" : v.master_address, held_back_note(*held));
    }
  }
}

Task<void> ReplicasManager::apply_loop(ReplicasManager* self, std::shared_ptr<bool> alive) {
  for (;;) {
    while (*alive && !self->pending_master_) (void)co_await self->apply_wake_.wait_for(std::chrono::seconds(1));
    if (!*alive) co_return;
    GroupView v = *self->pending_master_;
    self->pending_master_.reset();
    Status st = co_await self->to_master(v);
    if (!*alive) co_return;
    if (!st.ok()) {
      // A slow disk (timed_out) is waited out at warn level; anything else is an error.
      const auto level = st.error().code == Errc::timed_out ? spdlog::level::warn : spdlog::level::err;
      if (auto held = self->to_master_log_.admit(self->rt_.now(), static_cast<std::int64_t>(st.error().code))) {
        self->rt_.log().log(level, "controller mode: {} cannot take the master role of epoch {}: {} (retrying){}",
                            self->config_.broker_name, v.master_epoch, st.error().to_string(), held_back_note(*held));
      }
      co_await self->rt_.sleep(std::chrono::seconds(1));
      if (!self->pending_master_ && self->client_.view().master_id == self->client_.replica_id()) {
        self->pending_master_ = self->client_.view();
      }
    }
  }
}

Task<Status> ReplicasManager::to_master(GroupView v) {
  const std::int64_t id = client_.replica_id();
  if (role_ == Role::master && epoch_ == v.master_epoch) {
    ha_master_.set_sync_state_set(id, v.sync_state_set);  // the same epoch: the set changed
    co_return Status();
  }
  // Whatever the old master sent is this log's history; the rest of its epoch is not.
  ha_slave_.set_master(std::nullopt);
  if (store_.config().flush_mode == store::FlushMode::sync_flush) {
    const store::PutStatus durable = co_await store_.wait_durable(store_.max_phy_offset());
    if (durable != store::PutStatus::ok) {
      // A sync that did not finish in time (a slow disk) is tried again; a failed one is an error.
      co_return Error(durable == store::PutStatus::flush_disk_timeout ? Errc::timed_out : Errc::io_error,
                      fmt::format("the received log is not durable ({})", store::put_status_name(durable)));
    }
  }
  FERRY_CO_TRY(store_.truncate_to_indexed());
  if (epochs_.last_epoch() > v.master_epoch) {  // left by a life the controllers never confirmed
    Task<Status> cut = epochs_.truncate_from_epoch(v.master_epoch + 1);
    FERRY_CO_TRY(co_await std::move(cut));
  }
  // Master again in the epoch it already led (a restart the controllers did not notice): its
  // log continues that epoch, whose entry stays where it started.
  if (epochs_.last_epoch() != v.master_epoch) {
    Task<Status> appended = epochs_.append(v.master_epoch, store_.max_phy_offset());
    FERRY_CO_TRY(co_await std::move(appended));
  }
  // The view may have moved on while the files were written.
  const GroupView& now = client_.view();
  if (now.master_id != id || now.master_epoch != v.master_epoch) {
    co_return Status();  // on_view already made it a slave again, or queued the newer view
  }
  ha_master_.set_sync_state_set(id, now.sync_state_set);
  role_ = Role::master;
  epoch_ = v.master_epoch;
  if (hooks_.became_master) hooks_.became_master();
  rt_.log().warn("controller mode: {} replica {} is master in epoch {} from offset {}; SyncStateSet {}",
                 config_.broker_name, id, v.master_epoch, store_.max_phy_offset().value(),
                 fmt::join(now.sync_state_set, ","));
  co_return Status();
}

Task<void> ReplicasManager::sync_state_set_loop(ReplicasManager* self, std::shared_ptr<bool> alive) {
  MonoTime last_shrink_check = self->rt_.clock().now();
  for (;;) {
    co_await self->rt_.sleep(kSyncStateSetCheck);
    if (!*alive) co_return;
    if (self->role_ != Role::master) continue;
    const std::int64_t id = self->client_.replica_id();
    const std::set<std::int64_t>& current = self->ha_master_.sync_state_set();
    std::set<std::int64_t> want = current;
    want.insert(id);
    for (const std::int64_t joining : self->ha_master_.caught_up_outside()) want.insert(joining);
    const MonoTime now = self->rt_.clock().now();
    if (now - last_shrink_check >= self->config_.check_sync_state_set_period) {
      last_shrink_check = now;
      for (const std::int64_t lagging : self->ha_master_.lagging_members(self->config_.ha.max_time_slave_not_catchup)) {
        want.erase(lagging);
      }
    }
    if (want == current) continue;
    if (auto held = self->sync_state_set_log_.admit(self->rt_.now())) {
      self->rt_.log().info("controller mode: {} asks for SyncStateSet {} (was {}){}", self->config_.broker_name,
                           fmt::join(want, ","), fmt::join(current, ","), held_back_note(*held));
    }
    Task<Status> altered = self->client_.alter_sync_state_set(want, std::chrono::seconds(3));
    Status st = co_await std::move(altered);
    if (!*alive) co_return;
    if (!st.ok()) {
      if (auto held = self->sync_state_set_error_log_.admit(self->rt_.now(), static_cast<std::int64_t>(st.error().code))) {
        self->rt_.log().warn("controller mode: {} SyncStateSet change refused: {}{}", self->config_.broker_name,
                             st.error().to_string(), held_back_note(*held));
      }
    }
  }
}

Task<void> ReplicasManager::storage_loop(ReplicasManager* self, std::shared_ptr<bool> alive) {
  for (;;) {
    co_await self->rt_.sleep(kStorageCheck);
    if (!*alive) co_return;
    if (const std::optional<Error>& failed = self->store_.flusher().sync_failure()) {
      self->rt_.log().error("controller mode: {} replica {} ({} in epoch {}) cannot go on: {}", self->config_.broker_name,
                            self->client_.replica_id(),
                            self->role_ == Role::master ? "master" : (self->role_ == Role::slave ? "slave" : "no role"),
                            self->epoch_, failed->to_string());
      if (self->hooks_.storage_failed) self->hooks_.storage_failed(*failed);
      co_return;
    }
  }
}

}  // namespace ferry::broker
