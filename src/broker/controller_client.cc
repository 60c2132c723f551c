#include "broker/controller_client.h"

#include <charconv>

#include <fmt/format.h>

#include "remoting/body/controller_bodies.h"
#include "remoting/header/controller_header.h"
#include "remoting/request_code.h"
#include "remoting/response_code.h"

namespace ferry::broker {

using remoting::RemotingCommand;
namespace rc = remoting::request_code;
namespace code = remoting::response_code;

namespace {

constexpr Duration kCallTimeout = 3s;
constexpr Duration kRetryPause = 500ms;

GroupView view_of(const remoting::ElectMasterResponseHeader& h, const std::vector<std::uint8_t>& body) {
  GroupView v;
  v.master_id = h.master_broker_id.value_or(-1);
  v.master_address = h.master_address.value_or("");
  v.master_epoch = h.master_epoch.value_or(0);
  v.sync_state_set_epoch = h.sync_state_set_epoch.value_or(0);
  if (!body.empty()) {
    if (auto set = remoting::body::SyncStateSet::decode(body)) {
      v.sync_state_set = set->sync_state_set;
      if (!h.sync_state_set_epoch) v.sync_state_set_epoch = set->sync_state_set_epoch;
    }
  }
  return v;
}

}  // namespace

ControllerClient::ControllerClient(Runtime& rt, remoting::RpcClient& rpc, ControllerClientConfig config,
                                   ProgressFn progress, ChangeFn on_change)
    : rt_(rt),
      rpc_(rpc),
      config_(std::move(config)),
      progress_(std::move(progress)),
      on_change_(std::move(on_change)),
      identity_(rt, config_.identity_path) {}

ControllerClient::~ControllerClient() { *alive_ = false; }

Task<Result<RemotingCommand>> ControllerClient::call_leader(RemotingCommand request, Duration limit) {
  const MonoTime until = rt_.clock().now() + limit;
  std::string last = "no controller answered";
  while (rt_.clock().now() < until) {
    for (const std::string& addr : config_.controller_addrs) {
      auto meta = co_await rpc_.invoke(addr, remoting::make_request(rc::CONTROLLER_GET_METADATA_INFO, 0), kCallTimeout);
      if (!meta) {
        last = fmt::format("{}: {}", addr, meta.error().to_string());
        continue;
      }
      auto h = remoting::GetMetaDataResponseHeader::from_fields(meta->ext_fields);
      if (!h || h->controller_leader_address.empty()) continue;
      auto reply = co_await rpc_.invoke(h->controller_leader_address, request, kCallTimeout);
      if (!reply) {
        last = fmt::format("{}: {}", h->controller_leader_address, reply.error().to_string());
        continue;
      }
      if (reply->code == code::CONTROLLER_NOT_LEADER) continue;
      last_answer_ = rt_.clock().now();
      co_return reply;
    }
    co_await rt_.sleep(kRetryPause);
  }
  co_return Error(Errc::timed_out, "no controller leader: " + last);
}

Task<Status> ControllerClient::take_identity(Duration limit) {
  // A broker that has an id keeps it across restarts.
  std::optional<std::int64_t> kept;
  auto loaded = identity_.load([&](std::string_view text) -> Status {
    const std::string expected = config_.cluster_name + "#" + config_.broker_name + "#";
    if (text.substr(0, expected.size()) != expected) {
      return Error(Errc::corrupt, fmt::format("'{}' is not an identity of {}/{}", text, config_.cluster_name,
                                              config_.broker_name));
    }
    std::int64_t id = 0;
    std::string_view digits = text.substr(expected.size());
    auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), id);
    if (ec != std::errc{} || end != digits.data() + digits.size() || id < 1) {
      return Error(Errc::corrupt, fmt::format("'{}' does not end in a replica id", text));
    }
    kept = id;
    return {};
  });
  if (!loaded) co_return loaded.error();
  if (kept) {
    id_ = *kept;
    co_return Status{};
  }
  RemotingCommand next = remoting::make_request(rc::CONTROLLER_GET_NEXT_BROKER_ID, 0);
  next.ext_fields = remoting::BrokerNameRequestHeader{config_.cluster_name, config_.broker_name}.to_fields();
  auto n = co_await call_leader(std::move(next), limit);
  if (!n) co_return n.error();
  auto nh = remoting::GetNextBrokerIdResponseHeader::from_fields(n->ext_fields);
  if (!nh) co_return nh.error();
  RemotingCommand apply = remoting::make_request(rc::CONTROLLER_APPLY_BROKER_ID, 0);
  apply.ext_fields = remoting::ApplyBrokerIdRequestHeader{
      config_.cluster_name, config_.broker_name, nh->next_broker_id,
      fmt::format("{};{}", config_.broker_addr, rt_.clock().wall_ms())}.to_fields();
  auto a = co_await call_leader(std::move(apply), limit);
  if (!a) co_return a.error();
  if (a->code != code::SUCCESS) {
    co_return Error(Errc::invalid_argument, fmt::format("the controller refused replica id {}: {} {}",
                                                        nh->next_broker_id, a->code, a->remark.value_or("")));
  }
  Status saved = co_await identity_.write(fmt::format("{}#{}#{}", config_.cluster_name, config_.broker_name,
                                                      nh->next_broker_id));
  if (!saved) co_return saved;
  id_ = nh->next_broker_id;
  rt_.log().info("controller mode: {} took replica id {} of {}", config_.broker_addr, id_, config_.broker_name);
  co_return Status{};
}

Task<Status> ControllerClient::register_and_elect(Duration limit) {
  RemotingCommand reg = remoting::make_request(rc::CONTROLLER_REGISTER_BROKER, 0);
  reg.ext_fields = remoting::RegisterBrokerToControllerRequestHeader{config_.cluster_name, config_.broker_name, id_,
                                                                     config_.broker_addr, std::nullopt}.to_fields();
  auto r = co_await call_leader(std::move(reg), limit);
  if (!r) co_return r.error();
  if (r->code != code::SUCCESS) {
    co_return Error(Errc::invalid_argument, fmt::format("register refused: {} {}", r->code, r->remark.value_or("")));
  }
  auto rh = remoting::ElectMasterResponseHeader::from_fields(r->ext_fields);
  if (rh && rh->master_broker_id) {
    adopt(view_of(*rh, r->body));
    co_return Status{};
  }
  RemotingCommand elect = remoting::make_request(rc::CONTROLLER_ELECT_MASTER, 0);
  elect.ext_fields = remoting::ElectMasterRequestHeader{config_.cluster_name, config_.broker_name, id_, false,
                                                        std::nullopt}.to_fields();
  auto e = co_await call_leader(std::move(elect), limit);
  if (!e) co_return e.error();
  // SUCCESS: a new master; MASTER_STILL_EXIST: there is one (RocketMQ's broker takes both). The
  // reply's header has no SyncStateSet: the group's whole view is read (1004) instead.
  if (e->code == code::SUCCESS || e->code == code::CONTROLLER_MASTER_STILL_EXIST) co_await poll_once();
  co_return Status{};
}

Task<Status> ControllerClient::start(Duration limit) {
  Status id = co_await take_identity(limit);
  if (!id) co_return id;
  if (!loops_started_) rt_.spawn(heartbeat_loop(this, alive_), "controller-heartbeat");
  Status reg = co_await register_and_elect(limit);
  if (!reg) {
    loops_started_ = true;  // the heartbeats go on; a retry of start() does not start them again
    co_return reg;
  }
  if (!loops_started_ || !polling_) rt_.spawn(poll_loop(this, alive_), "controller-poll");
  loops_started_ = true;
  polling_ = true;
  co_return Status{};
}

Task<Status> ControllerClient::alter_sync_state_set(std::set<std::int64_t> set, Duration limit) {
  if (view_.master_id != id_) {
    co_return Error(Errc::invalid_argument, fmt::format("replica {} is not the master of {} (master {})", id_,
                                                        config_.broker_name, view_.master_id));
  }
  RemotingCommand req = remoting::make_request(rc::CONTROLLER_ALTER_SYNC_STATE_SET, 0);
  req.ext_fields = remoting::AlterSyncStateSetRequestHeader{config_.broker_name, id_, view_.master_epoch,
                                                            std::nullopt}.to_fields();
  req.body = remoting::body::SyncStateSet{set, view_.sync_state_set_epoch}.encode();
  auto reply = co_await call_leader(std::move(req), limit);
  if (!reply) co_return reply.error();
  if (reply->code != code::SUCCESS) {
    co_return Error(Errc::invalid_argument, fmt::format("alter refused: {} {}", reply->code, reply->remark.value_or("")));
  }
  auto applied = remoting::body::SyncStateSet::decode(reply->body);
  if (!applied) co_return applied.error();
  GroupView next = view_;
  next.sync_state_set = applied->sync_state_set;
  next.sync_state_set_epoch = applied->sync_state_set_epoch;
  adopt(next);
  co_return Status{};
}

void ControllerClient::adopt(const GroupView& seen) {
  if (seen.master_epoch < view_.master_epoch) return;  // older news
  if (seen.master_epoch == view_.master_epoch && seen.sync_state_set_epoch <= view_.sync_state_set_epoch) return;
  const bool new_master = seen.master_epoch > view_.master_epoch;
  view_ = seen;
  if (new_master) {
    if (auto held = new_master_log_.admit(rt_.now())) {
      rt_.log().info("controller mode: {} has master {} ({}) in epoch {}{}", config_.broker_name, seen.master_id,
                     seen.master_address, seen.master_epoch, held_back_note(*held));
    }
  }
  if (on_change_) on_change_(view_);
}

void ControllerClient::handle_notify(const RemotingCommand& request) {
  auto h = remoting::NotifyBrokerRoleChangedRequestHeader::from_fields(request.ext_fields);
  if (!h) {
    if (auto held = bad_notify_log_.admit(rt_.now())) {
      rt_.log().warn("NOTIFY_BROKER_ROLE_CHANGED: {}{}", h.error().detail, held_back_note(*held));
    }
    return;
  }
  remoting::ElectMasterResponseHeader as_reply;
  as_reply.master_broker_id = h->master_broker_id;
  as_reply.master_address = h->master_address;
  as_reply.master_epoch = h->master_epoch;
  as_reply.sync_state_set_epoch = h->sync_state_set_epoch;
  adopt(view_of(as_reply, request.body));
}

Task<void> ControllerClient::poll_once() {
  RemotingCommand req = remoting::make_request(rc::CONTROLLER_GET_REPLICA_INFO, 0);
  req.ext_fields = remoting::BrokerNameRequestHeader{std::nullopt, config_.broker_name}.to_fields();
  auto reply = co_await call_leader(std::move(req), config_.sync_metadata_period);
  if (!reply || reply->code != code::SUCCESS) co_return;
  auto h = remoting::ElectMasterResponseHeader::from_fields(reply->ext_fields);
  if (h) adopt(view_of(*h, reply->body));
}

Task<void> ControllerClient::poll_loop(ControllerClient* self, std::shared_ptr<bool> alive) {
  for (;;) {
    // A master's answers are its lease (replicas_manager.h): it asks at least four times a
    // heartbeat timeout, so one slow or lost answer does not fence it.
    const bool master = self->view_.master_id == self->id_ && self->id_ >= 0;
    const Duration period = master ? std::min(self->config_.sync_metadata_period, self->config_.heartbeat_timeout / 4)
                                   : self->config_.sync_metadata_period;
    co_await self->rt_.sleep(period);
    if (!*alive) co_return;
    co_await self->poll_once();
    if (!*alive) co_return;
  }
}

remoting::RemotingCommand ControllerClient::heartbeat_request(Duration timeout) const {
  const Progress p = progress_ ? progress_() : Progress{};
  remoting::BrokerHeartbeatRequestHeader h;
  h.cluster_name = config_.cluster_name;
  h.broker_addr = config_.broker_addr;
  h.broker_name = config_.broker_name;
  h.broker_id = id_;
  h.epoch = p.epoch;
  h.max_offset = p.max_offset;
  h.confirm_offset = p.confirm_offset;
  h.heartbeat_timeout_mills = std::chrono::duration_cast<std::chrono::milliseconds>(timeout).count();
  h.election_priority = config_.election_priority;
  RemotingCommand req = remoting::make_request(rc::BROKER_HEARTBEAT, 0);
  req.ext_fields = h.to_fields();
  return req;
}

Task<void> ControllerClient::heartbeat_loop(ControllerClient* self, std::shared_ptr<bool> alive) {
  for (;;) {
    if (!*alive) co_return;
    for (const std::string& addr : self->config_.controller_addrs) {
      Status sent = co_await self->rpc_.invoke_oneway(addr, self->heartbeat_request(self->config_.heartbeat_timeout));
      (void)sent;  // a controller that is down misses this beat; the next one goes again
      if (!*alive) co_return;
    }
    co_await self->rt_.sleep(self->config_.heartbeat_interval);
  }
}

Task<Status> ControllerClient::resign(Duration limit) {
  *alive_ = false;  // the loops end
  if (id_ < 0 || view_.master_id != id_) co_return Status{};
  const std::int32_t epoch = view_.master_epoch;
  for (const std::string& addr : config_.controller_addrs) {
    Status sent = co_await rpc_.invoke_oneway(addr, heartbeat_request(Duration{}));
    (void)sent;  // a controller that misses it waits out the heartbeat timeout
  }
  const MonoTime deadline = rt_.clock().now() + limit;
  for (;;) {
    const MonoTime now = rt_.clock().now();
    if (now >= deadline) break;
    RemotingCommand req = remoting::make_request(rc::CONTROLLER_GET_REPLICA_INFO, 0);
    req.ext_fields = remoting::BrokerNameRequestHeader{std::nullopt, config_.broker_name}.to_fields();
    auto reply = co_await call_leader(std::move(req), std::min<Duration>(deadline - now, std::chrono::seconds(3)));
    if (reply && reply->code == code::SUCCESS) {
      auto h = remoting::ElectMasterResponseHeader::from_fields(reply->ext_fields);
      if (h) {
        const GroupView seen = view_of(*h, reply->body);
        if (seen.master_id != id_ || seen.master_epoch > epoch) {
          rt_.log().warn("controller mode: {} replica {} gave up the master role of epoch {}: master now {} in epoch {}",
                         config_.broker_name, id_, epoch, seen.master_id, seen.master_epoch);
          co_return Status{};
        }
      }
    }
    co_await rt_.sleep(std::chrono::seconds(1));
  }
  co_return Error(Errc::timed_out, fmt::format("no controller named another master of {} within {} ms",
                                               config_.broker_name, to_ms(limit)));
}

}  // namespace ferry::broker
