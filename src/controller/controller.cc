#include "controller/controller.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include "remoting/body/controller_bodies.h"
#include "remoting/header/controller_header.h"
#include "remoting/request_code.h"

namespace ferry::controller {
namespace {

constexpr std::size_t kOutcomesMax = 1024;
// How long a controller that just started waits before it counts a master it never heard from
// as dead (RocketMQ's default controllerHeartBeatTimeoutMills).
constexpr Duration kUnseenGrace = 10s;

// Best effort: a broker also polls CONTROLLER_GET_REPLICA_INFO.
Task<void> send_oneway(remoting::RpcClient* client, std::shared_ptr<bool> alive, std::string addr,
                       remoting::RemotingCommand request) {
  if (!*alive) co_return;
  Status sent = co_await client->invoke_oneway(std::move(addr), std::move(request));
  (void)sent;
}

}  // namespace

Controller::Controller(Runtime& rt, ControllerConfig config)
    : rt_(rt),
      config_(std::move(config)),
      heartbeats_(rt.clock()),
      server_(rt),
      client_(rt),
      transport_(rt, client_) {
  register_metrics();
}

Controller::~Controller() { stop(); }

Status Controller::start() {
  FERRY_TRY(config_.validate());
  const ControllerPeer* self = config_.self_peer();
  auto endpoint = Endpoint::parse(self->address);
  if (!endpoint) return endpoint.error();
  raft_ = std::make_unique<RaftNode>(rt_, config_.raft_options(), transport_,
                                     [this](std::uint64_t index, Bytes command) { apply(index, command); });
  raft_->on_reset([this] {
    replicas_ = ReplicasInfo{};
    outcomes_.clear();
  });
  register_processors();
  FERRY_TRY(server_.start(*endpoint));
  FERRY_TRY(raft_->start());
  started_ = true;
  started_at_ = rt_.clock().now();
  arm_scan();
  rt_.log().info("controller {} of {} serving on {} ({} peers)", config_.self, config_.group,
                 self->address, config_.peers.size());
  return {};
}

void Controller::stop() {
  if (stopped_) return;
  stopped_ = true;
  *alive_ = false;
  rt_.timers().cancel(scan_timer_);
  server_.stop();
  client_.shutdown();
  if (raft_) raft_->stop();
}

void Controller::apply(std::uint64_t index, Bytes command) {
  auto event = decode_event(command);
  if (!event) {
    // Every controller refuses the same bytes the same way, so the state stays identical.
    rt_.log().error("controller: log entry {} is not an event ({}); skipped", index,
                    event.error().to_string());
    return;
  }
  const Applied outcome = replicas_.apply(*event);
  rt_.log().info("controller: applied {} at {}: {}", describe(*event), index,
                 outcome == Applied::changed ? "changed" : "fenced");
  outcomes_[index] = outcome;
  while (outcomes_.size() > kOutcomesMax) outcomes_.erase(outcomes_.begin());
}

Task<std::optional<Controller::Refusal>> Controller::commit(const Verdict& verdict) {
  if (!verdict.event) co_return std::nullopt;
  auto index = co_await raft_->propose(encode_event(*verdict.event));
  if (!index) {
    co_return Refusal{code::CONTROLLER_NOT_LEADER,
                      fmt::format("The controller lost its leadership before the change committed: {}",
                                  index.error().to_string())};
  }
  auto it = outcomes_.find(*index);
  if (it != outcomes_.end() && it->second == Applied::changed) co_return std::nullopt;
  // A concurrent change of the same group came first: the decision's epochs no longer hold.
  const std::int32_t fenced_code = std::visit(
      [](const auto& e) -> std::int32_t {
        using T = std::decay_t<decltype(e)>;
        if constexpr (std::is_same_v<T, ElectMasterEvent>) return code::CONTROLLER_ELECT_MASTER_FAILED;
        if constexpr (std::is_same_v<T, AlterSyncStateSetEvent>) return code::CONTROLLER_FENCED_SYNC_STATE_SET_EPOCH;
        if constexpr (std::is_same_v<T, ApplyReplicaIdEvent>) return code::CONTROLLER_BROKER_ID_INVALID;
        return code::CONTROLLER_INVALID_REQUEST;
      },
      *verdict.event);
  co_return Refusal{fenced_code, fmt::format("A concurrent change came first; {} took no effect",
                                             describe(*verdict.event))};
}

void Controller::arm_scan() {
  scan_timer_ = rt_.timers().schedule(config_.scan_not_active_broker_interval, [this, alive = alive_] {
    if (!*alive) return;
    scan();
    arm_scan();
  });
}

std::size_t Controller::scan() {
  for (const BrokerLiveInfo& gone : heartbeats_.expire()) {
    if (auto held = heartbeat_gone_log_.admit(rt_.now())) {
      rt_.log().info("controller: broker {} id {} ({}) stopped heart-beating{}", gone.name, gone.id, gone.address,
                     held_back_note(*held));
    }
  }
  if (!raft_ || !raft_->is_ready()) return 0;
  const bool young = rt_.clock().now() - started_at_ < kUnseenGrace;
  std::size_t started = 0;
  for (const auto& [name, set] : replicas_.sets()) {
    if (electing_.contains(name)) continue;
    const bool has_master = set.master.has_value();
    if (has_master) {
      if (heartbeats_.alive(name, *set.master) != nullptr) continue;
      if (young && heartbeats_.last(name, *set.master) == nullptr) continue;
    }
    bool someone_alive = false;
    for (const auto& [id, replica] : set.replicas) someone_alive |= heartbeats_.alive(name, id) != nullptr;
    if (!someone_alive) continue;
    if (!has_master && set.master_epoch == 0) continue;  // never elected: the brokers elect first
    ++started;
    electing_.insert(name);
    rt_.spawn(elect_and_notify(this, alive_, name), "controller-elect");
  }
  return started;
}

Task<void> Controller::elect_and_notify(Controller* self, std::shared_ptr<bool> alive, std::string name) {
  Verdict verdict = decide_elect(self->replicas_, ElectRequest{name, kNoReplica, false}, self->heartbeats_,
                                 self->config_.enable_elect_unclean_master);
  std::optional<Refusal> refused = co_await self->commit(verdict);
  if (!*alive) co_return;
  self->electing_.erase(name);
  if (!refused) self->count_election(name, verdict.code);
  if (refused || verdict.code != code::SUCCESS) {
    if (auto held = self->no_master_log_.admit(self->rt_.now(), refused ? -1 : verdict.code)) {
      self->rt_.log().warn("controller: no new master for {}: {}{}", name, refused ? refused->remark : verdict.remark,
                           held_back_note(*held));
    }
    co_return;
  }
  const BrokerSet* set = self->replicas_.find(name);
  if (set == nullptr || !set->master) co_return;
  self->rt_.log().info("controller: {} has a new master {} ({}), masterEpoch {}", name, *set->master,
                       set->address_of(*set->master), set->master_epoch);
  if (self->config_.notify_broker_role_changed) self->notify_role_changed(*set);
}

void Controller::notify_role_changed(const BrokerSet& set) {
  remoting::NotifyBrokerRoleChangedRequestHeader header;
  header.master_address = set.master ? set.address_of(*set.master) : std::string{};
  header.master_epoch = set.master_epoch;
  header.sync_state_set_epoch = set.sync_state_set_epoch;
  header.master_broker_id = set.master.value_or(kNoReplica);
  remoting::body::SyncStateSet body{std::set<std::int64_t>(set.sync_state_set.begin(), set.sync_state_set.end()),
                                    set.sync_state_set_epoch};
  for (const auto& [id, replica] : set.replicas) {
    if (heartbeats_.alive(set.name, id) == nullptr) continue;
    remoting::RemotingCommand req =
        remoting::make_request(remoting::request_code::NOTIFY_BROKER_ROLE_CHANGED, 0);
    req.ext_fields = header.to_fields();
    req.body = body.encode();
    rt_.spawn(send_oneway(&client_, alive_, replica.address, std::move(req)), "controller-notify");
  }
}

std::optional<remoting::RemotingCommand> Controller::not_leader(const remoting::RemotingCommand& request) const {
  if (raft_ && raft_->is_ready()) return std::nullopt;
  return remoting::make_response(request, code::CONTROLLER_NOT_LEADER, "The controller is not in leader state");
}

}  // namespace ferry::controller
