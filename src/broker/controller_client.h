// ControllerClient: a broker's side of controller mode, the registration and liveness part of
// RocketMQ 5's ReplicasManager (docs/controller.md). It
//   * finds the controller leader (CONTROLLER_GET_METADATA_INFO 1005 on each controllerAddr);
//   * takes a replica id once and keeps it in `{config}/brokerIdentity` ("cluster#brokerName#id"):
//     CONTROLLER_GET_NEXT_BROKER_ID (1012), then CONTROLLER_APPLY_BROKER_ID (1013) with the check
//     code "<brokerAddr>;<millis>" (a retry with the same code is accepted; RocketMQ's
//     `brokerIdentity-temp` step is not needed since the apply is idempotent per check code);
//   * registers (CONTROLLER_REGISTER_BROKER 1003) and, while its group has no master, asks to be
//     elected (CONTROLLER_ELECT_MASTER 1002);
//   * heart-beats every controller (BROKER_HEARTBEAT 904, oneway, every brokerHeartbeatInterval)
//     with its epoch, max and confirm offsets (from the owner);
//   * learns its group's master, epochs and SyncStateSet from NOTIFY_BROKER_ROLE_CHANGED (1008,
//     handle_notify) and by polling CONTROLLER_GET_REPLICA_INFO (1004) every
//     syncBrokerMetadataPeriod (as master at least four times a heartbeat timeout: the answers
//     are its lease), and calls the owner's hook when the view changes.
// What the broker then does with a role change (fencing, epochs, truncation) is the owner's.
//
// Lifetime: construct on the node's loop; start() once; the RpcClient and Runtime outlive it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/config_file.h"
#include "remoting/rpc/rpc_client.h"
#include "runtime/log_limiter.h"
#include "runtime/runtime.h"

namespace ferry::broker {

struct ControllerClientConfig {
  std::string cluster_name = "DefaultCluster";
  std::string broker_name;
  std::string broker_addr;                    // "ip:port" clients and the controllers reach it on
  std::vector<std::string> controller_addrs;  // controllerAddr, "ip:port;ip:port"
  Duration heartbeat_interval = 1s;           // brokerHeartbeatInterval
  Duration heartbeat_timeout = 10s;           // controllerHeartBeatTimeoutMills
  Duration sync_metadata_period = 5s;         // syncBrokerMetadataPeriod
  std::int32_t election_priority = std::numeric_limits<std::int32_t>::max();  // brokerElectionPriority
  std::string identity_path = "config/brokerIdentity";
};

// What the controllers say of the broker's group.
struct GroupView {
  std::int64_t master_id = -1;  // the master's replica id, -1 when none
  std::string master_address;
  std::int32_t master_epoch = 0;
  std::int32_t sync_state_set_epoch = 0;
  std::set<std::int64_t> sync_state_set;
  bool operator==(const GroupView&) const = default;
};

class ControllerClient {
 public:
  // The broker's replication state, sent with every heartbeat.
  struct Progress {
    std::int32_t epoch = -1;
    std::int64_t max_offset = -1;
    std::int64_t confirm_offset = -1;
  };
  using ProgressFn = std::function<Progress()>;
  using ChangeFn = std::function<void(const GroupView&)>;

  ControllerClient(Runtime& rt, remoting::RpcClient& rpc, ControllerClientConfig config, ProgressFn progress,
                   ChangeFn on_change);
  ~ControllerClient();

  // Takes (or loads) the replica id, registers, and elects itself if the group has no master;
  // then starts the heartbeat and poll loops. May be called again after a failure (the loops
  // start once). Retries each call until a leader answers, for at
  // most `limit`. Errors: timed_out, the controller's refusal (an id taken by another broker:
  // CONTROLLER_BROKER_ID_INVALID), the identity file (corrupt: another cluster or group's file).
  Task<Status> start(Duration limit);
  // As master: asks the controllers to make `set` the group's SyncStateSet
  // (CONTROLLER_ALTER_SYNC_STATE_SET 1001, fenced on this view's epochs); adopts the result.
  // Errors: not the master in this view (invalid_argument), the controller's refusal (its code
  // and remark: a stale epoch, a replica not alive), timed_out.
  Task<Status> alter_sync_state_set(std::set<std::int64_t> set, Duration limit);
  // Ends the heartbeats and the poll (the broker stops).
  void stop() { *alive_ = false; }
  // Gives the master role up before the broker stops for a fault (the heartbeats and the poll
  // end): a last heartbeat with a timeout of 0 tells every controller this replica is gone, and
  // the leader elects another at its next scan instead of one heartbeat timeout later. Returns
  // once a controller leader names another master or none (or at once when this replica is not
  // the master in its view), or with timed_out after `limit`. Restarted before then, the broker
  // would be named master again in the same epoch and hold a role it cannot use.
  Task<Status> resign(Duration limit);
  // NOTIFY_BROKER_ROLE_CHANGED (1008), from the broker's RpcServer.
  void handle_notify(const remoting::RemotingCommand& request);

  std::int64_t replica_id() const { return id_; }
  // When a controller leader last answered a call (the master's lease runs from it); nullopt
  // before any answer.
  std::optional<MonoTime> last_answer() const { return last_answer_; }
  const GroupView& view() const { return view_; }

 private:
  Task<Result<remoting::RemotingCommand>> call_leader(remoting::RemotingCommand request, Duration limit);
  Task<Status> take_identity(Duration limit);
  Task<Status> register_and_elect(Duration limit);
  void adopt(const GroupView& seen);
  static Task<void> heartbeat_loop(ControllerClient* self, std::shared_ptr<bool> alive);
  static Task<void> poll_loop(ControllerClient* self, std::shared_ptr<bool> alive);
  Task<void> poll_once();
  // BROKER_HEARTBEAT (904) with this replica's progress and `timeout`.
  remoting::RemotingCommand heartbeat_request(Duration timeout) const;

  Runtime& rt_;
  remoting::RpcClient& rpc_;
  ControllerClientConfig config_;
  ProgressFn progress_;
  ChangeFn on_change_;
  ConfigFile identity_;
  std::int64_t id_ = -1;
  GroupView view_;
  std::optional<MonoTime> last_answer_;
  bool loops_started_ = false;  // the heartbeat loop runs
  bool polling_ = false;        // the poll loop runs
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
  // NOTIFY_BROKER_ROLE_CHANGED comes from any peer, as often as it likes: new masters and bad
  // headers are written up once per period each.
  LogLimiter new_master_log_;
  LogLimiter bad_notify_log_;
};

}  // namespace ferry::broker
