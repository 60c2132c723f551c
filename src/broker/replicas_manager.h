// ReplicasManager: a broker in controller mode (RocketMQ 5's ReplicasManager; docs/controller.md).
// It holds the broker's epochs (EpochFile, `{store root}/epochFileCheckpoint`) and its
// ControllerClient, and turns the controllers' view of the group into the broker's role:
//
//  * The broker starts as a slave that refuses writes. start() registers with the controllers in
//    the background (retried every kRegisterRetry until it succeeds) and from then on follows
//    their view (NOTIFY_BROKER_ROLE_CHANGED and the poll).
//  * Named master (a new masterEpoch): replication from the old master stops; the received log is
//    made durable (SYNC_FLUSH) and cut to its last whole record; epochs of this number or later
//    (left by an older life) go and (epoch, max offset) is appended; the HA master takes the
//    SyncStateSet; then the owner's became_master hook makes it a SYNC_MASTER with brokerId 0.
//    Named master again in the same epoch: only the SyncStateSet changes.
//  * Named slave (another master, or none): at once, before anything awaits, the owner's
//    became_slave hook (writes refused, brokerId = replica id) and the HA slave follows the
//    master's HA address (its broker port + 1), cutting its log to where the epochs agree.
//  * As master, every second: slaves caught up outside the SyncStateSet join it, and members not
//    caught up for haMaxTimeSlaveNotCatchup leave it (CONTROLLER_ALTER_SYNC_STATE_SET; the
//    controller's answer is what the HA master then uses).
//  * Fencing (write_fence()): a master takes writes only while a controller has answered it
//    within controllerHeartBeatTimeoutMills (its lease; the controllers wait as long for a
//    heartbeat before electing another) and its view has no newer master.
//  * A CommitLog sync that failed (store/flush_service.h: writes refused until a restart) is a
//    fault only a restart clears: within kStorageCheck the owner's storage_failed hook is called,
//    once (the Broker resigns the master role, then stops; the controllers elect another
//    in-sync replica, and the restarted broker recovers what was durable). Heart-beating on, such a broker would hold the
//    master role it cannot take or use, and its group would stay without a writable master.
//
// Known gap: a master restarted within the heartbeat timeout is named master again in the same
// epoch. With ASYNC_FLUSH after a power loss its log may end before what its slaves hold of that
// epoch, and they cut to it (RocketMQ 5 behaves the same).
//
// Threading: the node's loop only. Lifetime: a component of the Broker; loops capture `this`.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "broker/broker_config.h"
#include "broker/controller_client.h"
#include "runtime/log_limiter.h"
#include "runtime/wake_signal.h"
#include "store/ha/epoch_file.h"
#include "store/ha/ha_master.h"
#include "store/ha/ha_slave.h"
#include "store/message_store.h"

namespace ferry::broker {

class ReplicasManager {
 public:
  static constexpr Duration kRegisterRetry = std::chrono::seconds(5);
  static constexpr Duration kSyncStateSetCheck = std::chrono::seconds(1);
  static constexpr Duration kStorageCheck = std::chrono::seconds(1);

  struct Hooks {
    // The broker takes writes as the group's master (epochs and HA are ready).
    std::function<void()> became_master;
    // The broker is a slave with this replica id (writes refused from now).
    std::function<void(std::int64_t replica_id)> became_slave;
    // The store's CommitLog sync failed (the error says which file and offset); called once.
    std::function<void(const Error& failure)> storage_failed;
  };

  ReplicasManager(Runtime& rt, remoting::RpcClient& rpc, const BrokerConfig& config, std::string broker_addr,
                  store::MessageStore& store, store::ha::HaMaster& ha_master, store::ha::HaSlave& ha_slave,
                  Hooks hooks);
  ~ReplicasManager();

  // After the store opened, before the HA master starts: loads the epoch file and switches both
  // HA roles to the AutoSwitch protocol. Errors: the epoch file and its backup unusable (corrupt).
  Status open();
  // Registers in the background and follows the controllers (see above).
  void start();
  void stop();
  // Before the owner stops for a fault: the loops end and the master role, if this replica holds
  // it in the controllers' view, is given up (ControllerClient::resign, waiting at most one
  // heartbeat timeout and two scans). Errors: timed_out (the owner stops anyway).
  Task<Status> resign();
  // NOTIFY_BROKER_ROLE_CHANGED (1008).
  void handle_notify(const remoting::RemotingCommand& request) { client_.handle_notify(request); }

  // Why this broker must not take a write now, or nullopt.
  std::optional<std::string> write_fence() const;
  bool is_master() const { return role_ == Role::master; }
  bool registered() const { return registered_; }
  std::int32_t master_epoch() const { return epoch_; }
  const store::EpochFile& epochs() const { return epochs_; }
  const ControllerClient& client() const { return client_; }
  // The offset consumers may read to: the HA master's confirm offset as master, the one the
  // master sent as slave (RocketMQ's confirmOffset).
  PhysicalOffset confirm_offset() const;

 private:
  enum class Role : std::uint8_t { none, slave, master };

  void on_view(const GroupView& v);
  void to_slave(const GroupView& v);
  static Task<void> register_loop(ReplicasManager* self, std::shared_ptr<bool> alive);
  static Task<void> apply_loop(ReplicasManager* self, std::shared_ptr<bool> alive);
  static Task<void> sync_state_set_loop(ReplicasManager* self, std::shared_ptr<bool> alive);
  static Task<void> storage_loop(ReplicasManager* self, std::shared_ptr<bool> alive);
  Task<Status> to_master(GroupView v);

  Runtime& rt_;
  const BrokerConfig& config_;
  store::MessageStore& store_;
  store::ha::HaMaster& ha_master_;
  store::ha::HaSlave& ha_slave_;
  Hooks hooks_;
  store::EpochFile epochs_;
  ControllerClient client_;
  Role role_ = Role::none;
  std::int32_t epoch_ = 0;  // the masterEpoch of the role in force
  bool registered_ = false;
  std::optional<GroupView> pending_master_;  // a view naming this broker master, to apply
  WakeSignal apply_wake_;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
  LogLimiter register_log_;               // registrations failed, by Errc
  LogLimiter slave_log_;                  // slave roles taken (1: was master)
  LogLimiter to_master_log_;              // master roles not taken yet, by Errc
  LogLimiter sync_state_set_log_;         // SyncStateSet changes asked for
  LogLimiter sync_state_set_error_log_;   // and refused, by Errc
};

}  // namespace ferry::broker
