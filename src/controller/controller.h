// Controller: one member of a controller quorum (RocketMQ 5's ControllerManager), serving brokers
// and operators on its peer address: BROKER_HEARTBEAT (904, any controller) and the CONTROLLER_*
// requests (1001-1006, 1011-1013: the leader; 1005, 1009, 1010: any controller), the Raft messages between
// controllers (FERRY_RAFT_MESSAGE) — and electing a new master when a master's heartbeats stop.
//
//   Controller c(rt, config);
//   FERRY_TRY(c.start());         // listens on the self peer's address, starts Raft
//
// Requests that change state are decided on the leader (decisions.h) and answered once their
// event is committed and applied here; an event fenced by a concurrent change is answered with
// the fencing code and changes nothing. A controller that is not the ready leader answers
// CONTROLLER_NOT_LEADER (2007); brokers find the leader with CONTROLLER_GET_METADATA_INFO (1005).
//
// Elections (leader only), every scan_not_active_broker_interval: heartbeats that expired are
// dropped; every group whose master is not alive while another replica is gets an election; a
// new master is announced to the group's alive replicas with NOTIFY_BROKER_ROLE_CHANGED (1008,
// oneway). A controller that just started gives a master it never heard from one heartbeat
// timeout (10 s) before it counts it dead.
//
// Lifetime: construct and use on the node's loop; stop() (also the destructor) stops serving.
#pragma once

#include <cstdint>
#include <map>
#include <memory>

#include "common/metrics.h"
#include "controller/controller_config.h"
#include "controller/decisions.h"
#include "controller/liveness.h"
#include "controller/raft_node.h"
#include "controller/replicas_info.h"
#include "controller/rpc_raft_transport.h"
#include "remoting/rpc/rpc_client.h"
#include "remoting/rpc/rpc_metrics.h"
#include "remoting/rpc/rpc_server.h"
#include "runtime/log_limiter.h"
#include "runtime/runtime.h"

namespace ferry::controller {

class Controller {
 public:
  Controller(Runtime& rt, ControllerConfig config);
  ~Controller();
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  // Errors: the config's (invalid_argument), listen (address_in_use), Raft's files (corrupt).
  Status start();
  void stop();

  const ReplicasInfo& replicas() const { return replicas_; }
  const HeartbeatTable& heartbeats() const { return heartbeats_; }
  const RaftNode& raft() const { return *raft_; }
  const ControllerConfig& config() const { return config_; }
  // The controller's metrics (controller_metrics.cc; docs/operations.md "Monitoring"): RocketMQ
  // 5's controller names (role, active_broker_num, election_total, request_total,
  // request_latency_microseconds), rocketmq_rpc_latency_milliseconds, and ferry_controller_* (Raft
  // term and commit index, each group's master epoch and SyncStateSet size).
  const metrics::Registry& metrics() const { return metrics_; }
  // Where UPDATE_CONTROLLER_CONFIG (1009) saves what it changed (the daemon's file writer);
  // unset, changes live in memory only.
  using Persister = std::function<Status(const std::map<std::string, std::string>& changes)>;
  void set_config_persister(Persister p) { persister_ = std::move(p); }

  // Runs the liveness scan now (the timer does too); returns how many elections it started.
  std::size_t scan();

 private:
  using Reply = std::optional<remoting::RemotingCommand>;
  void register_processors();
  Task<Reply> heartbeat(remoting::RequestContext ctx);
  Task<Reply> alter_sync_state_set(remoting::RequestContext ctx);
  Task<Reply> elect_master(remoting::RequestContext ctx);
  Task<Reply> register_broker(remoting::RequestContext ctx);
  Task<Reply> get_replica_info(remoting::RequestContext ctx);
  Task<Reply> get_metadata(remoting::RequestContext ctx);
  Task<Reply> get_sync_state_data(remoting::RequestContext ctx);
  Task<Reply> get_local_sync_state_data(remoting::RequestContext ctx);
  Task<Reply> clean_broker_data(remoting::RequestContext ctx);
  Task<Reply> get_next_broker_id(remoting::RequestContext ctx);
  Task<Reply> apply_broker_id(remoting::RequestContext ctx);
  Task<Reply> update_config(remoting::RequestContext ctx);
  Task<Reply> get_config(remoting::RequestContext ctx);

  // Commits the verdict's event (if any). nullopt: it took effect (or there was none); else the
  // reply code and remark to answer with instead (not the leader any more, fenced).
  struct Refusal {
    std::int32_t code;
    std::string remark;
  };
  Task<std::optional<Refusal>> commit(const Verdict& verdict);
  static Task<void> elect_and_notify(Controller* self, std::shared_ptr<bool> alive, std::string name);
  void notify_role_changed(const BrokerSet& set);
  void arm_scan();
  void register_metrics();
  // election_total: one election of `set` decided with `verdict_code` (RocketMQ's results).
  void count_election(const std::string& set, std::int32_t verdict_code);
  void apply(std::uint64_t index, Bytes command);
  std::optional<remoting::RemotingCommand> not_leader(const remoting::RemotingCommand& request) const;

  Runtime& rt_;
  ControllerConfig config_;
  ReplicasInfo replicas_;
  HeartbeatTable heartbeats_;
  metrics::Registry metrics_;
  remoting::RpcMetrics rpc_metrics_{metrics_};
  metrics::Family<metrics::Counter>* elections_ = nullptr;
  metrics::Family<metrics::Counter>* requests_ = nullptr;
  metrics::Family<metrics::Histogram>* request_latency_ = nullptr;
  remoting::RpcServer server_;
  remoting::RpcClient client_;
  RpcRaftTransport transport_;
  std::unique_ptr<RaftNode> raft_;
  std::map<std::uint64_t, Applied> outcomes_;  // by log index, the last kOutcomesMax
  std::set<std::string> electing_;
  Persister persister_;             // groups with an election in flight
  MonoTime started_at_{};
  TimerId scan_timer_{};
  bool started_ = false;
  bool stopped_ = false;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
  LogLimiter heartbeat_gone_log_;  // brokers that stopped heart-beating (any peer can come and go)
  LogLimiter no_master_log_;       // elections that named no master (each scan), by response code (-1: refused)
};

}  // namespace ferry::controller
