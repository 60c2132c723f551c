// The controller's request processors: BROKER_HEARTBEAT (904) and CONTROLLER_* (1001-1006,
// 1011-1013), with RocketMQ's headers, bodies, codes and remarks; and Ferry's
// FERRY_GET_LOCAL_SYNC_STATE_DATA (10004), 1006 answered from any peer's own state.
#include <fmt/format.h>

#include "controller/controller.h"
#include "remoting/body/controller_bodies.h"
#include "remoting/header/controller_header.h"
#include "remoting/request_code.h"

namespace ferry::controller {

using remoting::RemotingCommand;
using remoting::RequestContext;
namespace rc = remoting::request_code;

namespace {

RemotingCommand invalid(const RemotingCommand& request, std::string what) {
  return remoting::make_response(request, code::CONTROLLER_INVALID_REQUEST, std::move(what));
}

remoting::body::SyncStateSet sync_state_set_of(const BrokerSet& set) {
  return remoting::body::SyncStateSet{std::set<std::int64_t>(set.sync_state_set.begin(), set.sync_state_set.end()),
                                      set.sync_state_set_epoch};
}

// The master fields of a reply (all absent when the group has no master).
remoting::ElectMasterResponseHeader master_fields(const BrokerSet& set, bool only_if_alive,
                                                  const Liveness& alive) {
  remoting::ElectMasterResponseHeader h;
  if (set.master && (!only_if_alive || alive.alive(set.name, *set.master) != nullptr)) {
    h.master_broker_id = *set.master;
    h.master_address = set.address_of(*set.master);
    h.master_epoch = set.master_epoch;
    h.sync_state_set_epoch = set.sync_state_set_epoch;
  }
  return h;
}

// 1006's body for `names` (every group this controller knows when empty; unknown names skipped),
// from this controller's state.
remoting::body::BrokerReplicasInfo replicas_info_of(const ReplicasInfo& replicas, const Liveness& heartbeats,
                                                    const std::vector<std::string>& names) {
  remoting::body::BrokerReplicasInfo info;
  auto add = [&](const std::string& name, const BrokerSet& set) {
    remoting::body::ReplicasInfo r;
    r.master_broker_id = set.master.value_or(kNoReplica);
    r.master_address = set.master ? set.address_of(*set.master) : std::string{};
    r.master_epoch = set.master_epoch;
    r.sync_state_set_epoch = set.sync_state_set_epoch;
    for (const auto& [id, replica] : set.replicas) {
      remoting::body::ReplicaIdentity identity{name, id, replica.address, heartbeats.alive(name, id) != nullptr};
      (set.sync_state_set.contains(id) ? r.in_sync_replicas : r.not_in_sync_replicas).push_back(identity);
    }
    info.replicas_info_table.emplace(name, std::move(r));
  };
  if (names.empty()) {
    for (const auto& [name, set] : replicas.sets()) add(name, set);
  }
  for (const std::string& name : names) {
    if (const BrokerSet* set = replicas.find(name)) add(name, *set);
  }
  return info;
}

}  // namespace

void Controller::register_processors() {
  RpcRaftTransport::serve(server_, *raft_);
  auto bind = [this](std::int32_t code, Task<Reply> (Controller::*fn)(RequestContext)) {
    server_.register_processor(code, [this, fn](RequestContext ctx) { return (this->*fn)(std::move(ctx)); });
  };
  bind(rc::BROKER_HEARTBEAT, &Controller::heartbeat);
  bind(rc::CONTROLLER_ALTER_SYNC_STATE_SET, &Controller::alter_sync_state_set);
  bind(rc::CONTROLLER_ELECT_MASTER, &Controller::elect_master);
  bind(rc::CONTROLLER_REGISTER_BROKER, &Controller::register_broker);
  bind(rc::CONTROLLER_GET_REPLICA_INFO, &Controller::get_replica_info);
  bind(rc::CONTROLLER_GET_METADATA_INFO, &Controller::get_metadata);
  bind(rc::CONTROLLER_GET_SYNC_STATE_DATA, &Controller::get_sync_state_data);
  bind(rc::FERRY_GET_LOCAL_SYNC_STATE_DATA, &Controller::get_local_sync_state_data);
  bind(rc::CLEAN_BROKER_DATA, &Controller::clean_broker_data);
  bind(rc::CONTROLLER_GET_NEXT_BROKER_ID, &Controller::get_next_broker_id);
  bind(rc::CONTROLLER_APPLY_BROKER_ID, &Controller::apply_broker_id);
  bind(rc::UPDATE_CONTROLLER_CONFIG, &Controller::update_config);
  bind(rc::GET_CONTROLLER_CONFIG, &Controller::get_config);
}

Task<Controller::Reply> Controller::heartbeat(RequestContext ctx) {
  auto h = remoting::BrokerHeartbeatRequestHeader::from_fields(ctx.request.ext_fields);
  if (!h) co_return invalid(ctx.request, h.error().detail);
  if (!h->broker_id) co_return invalid(ctx.request, "Heart beat with empty brokerId");
  BrokerLiveInfo info;
  info.cluster = h->cluster_name;
  info.name = h->broker_name;
  info.id = *h->broker_id;
  info.address = h->broker_addr;
  info.epoch = h->epoch.value_or(-1);
  info.max_offset = h->max_offset.value_or(-1);
  info.confirm_offset = h->confirm_offset.value_or(-1);
  info.election_priority = h->election_priority.value_or(std::numeric_limits<std::int32_t>::max());
  info.timeout = std::chrono::milliseconds(h->heartbeat_timeout_mills.value_or(10'000));
  heartbeats_.beat(std::move(info));
  co_return remoting::make_response(ctx.request, code::SUCCESS, "Heart beat success");
}

Task<Controller::Reply> Controller::alter_sync_state_set(RequestContext ctx) {
  if (auto refuse = not_leader(ctx.request)) co_return refuse;
  auto h = remoting::AlterSyncStateSetRequestHeader::from_fields(ctx.request.ext_fields);
  if (!h) co_return invalid(ctx.request, h.error().detail);
  auto body = remoting::body::SyncStateSet::decode(ctx.request.body);
  if (!body) co_return invalid(ctx.request, body.error().detail);
  AlterRequest req{h->broker_name, h->master_broker_id, h->master_epoch, body->sync_state_set_epoch,
                   std::set<ReplicaId>(body->sync_state_set.begin(), body->sync_state_set.end())};
  Verdict verdict = decide_alter(replicas_, req, heartbeats_);
  if (verdict.code != code::SUCCESS) co_return remoting::make_response(ctx.request, verdict.code, verdict.remark);
  if (auto refused = co_await commit(verdict)) {
    co_return remoting::make_response(ctx.request, refused->code, refused->remark);
  }
  const BrokerSet* set = replicas_.find(h->broker_name);
  RemotingCommand reply = remoting::make_response(ctx.request, code::SUCCESS);
  reply.ext_fields = remoting::AlterSyncStateSetResponseHeader{set->sync_state_set_epoch}.to_fields();
  reply.body = sync_state_set_of(*set).encode();
  co_return reply;
}

Task<Controller::Reply> Controller::elect_master(RequestContext ctx) {
  if (auto refuse = not_leader(ctx.request)) co_return refuse;
  auto h = remoting::ElectMasterRequestHeader::from_fields(ctx.request.ext_fields);
  if (!h) co_return invalid(ctx.request, h.error().detail);
  Verdict verdict = decide_elect(replicas_, ElectRequest{h->broker_name, h->broker_id, h->designate_elect},
                                 heartbeats_, config_.enable_elect_unclean_master);
  std::optional<Refusal> refused = co_await commit(verdict);
  if (refused) co_return remoting::make_response(ctx.request, refused->code, refused->remark);
  count_election(h->broker_name, verdict.code);
  const BrokerSet* set = replicas_.find(h->broker_name);
  RemotingCommand reply = remoting::make_response(ctx.request, verdict.code,
                                                  verdict.remark.empty() ? std::optional<std::string>{} : verdict.remark);
  if (set == nullptr) co_return reply;
  reply.ext_fields = master_fields(*set, false, heartbeats_).to_fields();
  remoting::body::ElectMasterResponseBody body;
  body.sync_state_set = sync_state_set_of(*set).sync_state_set;
  if (verdict.code == code::SUCCESS) {
    body.has_member_group = true;
    body.cluster = set->cluster;
    body.broker_name = set->name;
    for (const auto& [id, replica] : set->replicas) body.broker_addrs[id] = replica.address;
    if (config_.notify_broker_role_changed) notify_role_changed(*set);
  }
  reply.body = body.encode();
  co_return reply;
}

Task<Controller::Reply> Controller::register_broker(RequestContext ctx) {
  if (auto refuse = not_leader(ctx.request)) co_return refuse;
  auto h = remoting::RegisterBrokerToControllerRequestHeader::from_fields(ctx.request.ext_fields);
  if (!h) co_return invalid(ctx.request, h.error().detail);
  Verdict verdict = decide_register(replicas_, h->broker_name, h->broker_id, h->broker_address);
  if (verdict.code != code::SUCCESS) co_return remoting::make_response(ctx.request, verdict.code, verdict.remark);
  if (auto refused = co_await commit(verdict)) {
    co_return remoting::make_response(ctx.request, refused->code, refused->remark);
  }
  const BrokerSet* set = replicas_.find(h->broker_name);
  RemotingCommand reply = remoting::make_response(ctx.request, code::SUCCESS);
  reply.ext_fields = master_fields(*set, true, heartbeats_).to_fields();
  reply.ext_fields.set("clusterName", set->cluster);
  reply.ext_fields.set("brokerName", set->name);
  reply.body = sync_state_set_of(*set).encode();
  co_return reply;
}

Task<Controller::Reply> Controller::get_replica_info(RequestContext ctx) {
  if (auto refuse = not_leader(ctx.request)) co_return refuse;
  auto h = remoting::BrokerNameRequestHeader::from_fields(ctx.request.ext_fields);
  if (!h) co_return invalid(ctx.request, h.error().detail);
  const BrokerSet* set = replicas_.find(h->broker_name);
  if (set == nullptr) {
    co_return remoting::make_response(ctx.request, code::CONTROLLER_BROKER_METADATA_NOT_EXIST,
                                      "Broker metadata is not existed");
  }
  RemotingCommand reply = remoting::make_response(ctx.request, code::SUCCESS);
  remoting::ElectMasterResponseHeader m = master_fields(*set, false, heartbeats_);
  m.sync_state_set_epoch.reset();  // 1004's header has the master's id, address and epoch only
  reply.ext_fields = m.to_fields();
  reply.body = sync_state_set_of(*set).encode();
  co_return reply;
}

Task<Controller::Reply> Controller::get_metadata(RequestContext ctx) {
  remoting::GetMetaDataResponseHeader h;
  h.group = config_.group;
  h.is_leader = raft_ && raft_->is_ready();
  const raft_id leader = raft_ ? raft_->leader_id() : 0;
  for (std::size_t i = 0; i < config_.peers.size(); ++i) {
    const ControllerPeer& p = config_.peers[i];
    h.peers += fmt::format("{}:{};", p.name, p.address);
    if (i + 1 == leader) {
      h.controller_leader_id = p.name;
      h.controller_leader_address = p.address;
    }
  }
  RemotingCommand reply = remoting::make_response(ctx.request, code::SUCCESS);
  reply.ext_fields = h.to_fields();
  co_return reply;
}

Task<Controller::Reply> Controller::get_sync_state_data(RequestContext ctx) {
  if (auto refuse = not_leader(ctx.request)) co_return refuse;
  RemotingCommand reply = remoting::make_response(ctx.request, code::SUCCESS);
  if (ctx.request.body.empty()) co_return reply;
  auto names = remoting::body::parse_name_list(ctx.request.body);
  if (!names) co_return invalid(ctx.request, names.error().detail);
  reply.body = replicas_info_of(replicas_, heartbeats_, *names).encode();
  co_return reply;
}

Task<Controller::Reply> Controller::get_local_sync_state_data(RequestContext ctx) {
  std::vector<std::string> names;
  if (!ctx.request.body.empty()) {
    auto parsed = remoting::body::parse_name_list(ctx.request.body);
    if (!parsed) co_return invalid(ctx.request, parsed.error().detail);
    names = std::move(*parsed);
  }
  RemotingCommand reply = remoting::make_response(ctx.request, code::SUCCESS);
  reply.body = replicas_info_of(replicas_, heartbeats_, names).encode();
  co_return reply;
}

Task<Controller::Reply> Controller::clean_broker_data(RequestContext ctx) {
  if (auto refuse = not_leader(ctx.request)) co_return refuse;
  auto h = remoting::CleanControllerBrokerDataRequestHeader::from_fields(ctx.request.ext_fields);
  if (!h) co_return invalid(ctx.request, h.error().detail);
  Verdict verdict = decide_clean(replicas_,
                                 CleanRequest{h->broker_name, h->broker_controller_ids_to_clean.value_or(""),
                                              h->is_clean_living_broker},
                                 heartbeats_);
  if (verdict.code != code::SUCCESS) co_return remoting::make_response(ctx.request, verdict.code, verdict.remark);
  if (auto refused = co_await commit(verdict)) {
    co_return remoting::make_response(ctx.request, refused->code, refused->remark);
  }
  co_return remoting::make_response(ctx.request, code::SUCCESS);
}

Task<Controller::Reply> Controller::get_next_broker_id(RequestContext ctx) {
  if (auto refuse = not_leader(ctx.request)) co_return refuse;
  auto h = remoting::BrokerNameRequestHeader::from_fields(ctx.request.ext_fields);
  if (!h) co_return invalid(ctx.request, h.error().detail);
  RemotingCommand reply = remoting::make_response(ctx.request, code::SUCCESS);
  reply.ext_fields = remoting::GetNextBrokerIdResponseHeader{h->cluster_name.value_or(""), h->broker_name,
                                                             next_replica_id(replicas_, h->broker_name)}
                         .to_fields();
  co_return reply;
}

Task<Controller::Reply> Controller::apply_broker_id(RequestContext ctx) {
  if (auto refuse = not_leader(ctx.request)) co_return refuse;
  auto h = remoting::ApplyBrokerIdRequestHeader::from_fields(ctx.request.ext_fields);
  if (!h) co_return invalid(ctx.request, h.error().detail);
  Verdict verdict = decide_apply_id(
      replicas_, ApplyIdRequest{h->cluster_name, h->broker_name, h->applied_broker_id, h->register_check_code});
  if (verdict.code != code::SUCCESS) co_return remoting::make_response(ctx.request, verdict.code, verdict.remark);
  if (auto refused = co_await commit(verdict)) {
    co_return remoting::make_response(ctx.request, refused->code, refused->remark);
  }
  RemotingCommand reply = remoting::make_response(ctx.request, code::SUCCESS);
  reply.ext_fields.set("clusterName", h->cluster_name);
  reply.ext_fields.set("brokerName", h->broker_name);
  co_return reply;
}

}  // namespace ferry::controller
