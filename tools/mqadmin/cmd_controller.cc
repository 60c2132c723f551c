// The controller verbs (RocketMQ 5's controller mode, docs/controller.md), with RocketMQ's names,
// flags and output lines:
//   getControllerMetaData -a ADDR               CONTROLLER_GET_METADATA_INFO (1005) of one controller
//   getSyncStateSet -a ADDRS -b BROKER_NAME     CONTROLLER_GET_SYNC_STATE_DATA (1006) from the leader
//   electMaster -a ADDRS -c CLUSTER --brokerName B -b ID   CONTROLLER_ELECT_MASTER (1002), designated
//   cleanBrokerMetadata -a ADDRS --brokerName B [-b "1;2"] [-l]   CLEAN_BROKER_DATA (1011)
//   getControllerConfig -a ADDRS                GET_CONTROLLER_CONFIG (1010) of each controller
//   updateControllerConfig -a ADDRS -k KEY -v VALUE   UPDATE_CONTROLLER_CONFIG (1009) on each
// -a takes "ip:port;ip:port": the leader is found with 1005 on each in turn. RocketMQ spells the
// broker name flag -bn; Ferry's flags have one letter, so it is --brokerName.
#include <fmt/format.h>

#include <cstdio>

#include "remoting/body/controller_bodies.h"
#include "remoting/body/properties_text.h"
#include "remoting/header/controller_header.h"
#include "remoting/request_code.h"
#include "remoting/response_code.h"
#include "tools/mqadmin/command.h"

namespace ferry::mqadmin {
namespace {

using remoting::RemotingCommand;
namespace rc = remoting::request_code;

constexpr auto kTimeout = std::chrono::seconds(3);

std::vector<std::string> split_addrs(const std::string& text) {
  std::vector<std::string> out;
  std::string_view rest = text;
  while (!rest.empty()) {
    const auto semi = rest.find(';');
    std::string_view one = rest.substr(0, semi);
    rest = semi == std::string_view::npos ? std::string_view{} : rest.substr(semi + 1);
    if (!one.empty()) out.emplace_back(one);
  }
  return out;
}

Task<Result<RemotingCommand>> call(remoting::RpcClient* rpc, std::string addr, RemotingCommand req) {
  co_return co_await rpc->invoke(std::move(addr), std::move(req), kTimeout);
}

Result<RemotingCommand> metadata_of(AdminSession& s, const std::string& addr) {
  return s.run(call(&s.instance().rpc(), addr, remoting::make_request(rc::CONTROLLER_GET_METADATA_INFO, 0)));
}

// The leader's address, asking each of `addrs` in turn.
Result<std::string> leader_of(AdminSession& s, const std::vector<std::string>& addrs) {
  std::string tried;
  for (const std::string& addr : addrs) {
    auto reply = metadata_of(s, addr);
    if (!reply) {
      tried += fmt::format(" {} ({})", addr, reply.error().to_string());
      continue;
    }
    auto h = remoting::GetMetaDataResponseHeader::from_fields(reply->ext_fields);
    if (h && !h->controller_leader_address.empty()) return h->controller_leader_address;
    tried += fmt::format(" {} (knows no leader)", addr);
  }
  return Error(Errc::unreachable, "no controller leader:" + tried);
}

// Sends `req` to the leader; a reply other than SUCCESS is an error naming its code and remark.
Result<RemotingCommand> call_leader(AdminSession& s, const std::string& addrs, RemotingCommand req) {
  auto leader = leader_of(s, split_addrs(addrs));
  if (!leader) return leader.error();
  auto reply = s.run(call(&s.instance().rpc(), *leader, std::move(req)));
  if (!reply) return reply.error();
  if (reply->code != remoting::response_code::SUCCESS) {
    return Error(Errc::invalid_argument, fmt::format("controller {} answered {}: {}", *leader, reply->code,
                                                     reply->remark.value_or("")));
  }
  return reply;
}

int get_metadata(const ParsedFlags& f, AdminSession& s) {
  const std::string addr = split_addrs(*f.get("controllerAddress")).front();
  auto reply = metadata_of(s, addr);
  if (!reply) return fail("getControllerMetaData", reply.error());
  auto h = remoting::GetMetaDataResponseHeader::from_fields(reply->ext_fields);
  if (!h) return fail("getControllerMetaData", h.error());
  std::printf("\n#ControllerGroup\t%s", h->group.c_str());
  std::printf("\n#ControllerLeaderId\t%s", h->controller_leader_id.c_str());
  std::printf("\n#ControllerLeaderAddress\t%s", h->controller_leader_address.c_str());
  for (const std::string& peer : split_addrs(h->peers)) std::printf("\n#Peer:\t%s", peer.c_str());
  std::printf("\n");
  return kExitOk;
}

void print_replicas(const char* label, const std::string& name,
                    const std::vector<remoting::body::ReplicaIdentity>& all) {
  for (const auto& r : all) {
    std::printf("\n%s:\tReplicaIdentity{brokerName='%s', brokerId=%lld, brokerAddress='%s', alive=%s}\n", label,
                name.c_str(), static_cast<long long>(r.broker_id), r.broker_address.c_str(), r.alive ? "true" : "false");
  }
}

int get_sync_state_set(const ParsedFlags& f, AdminSession& s) {
  const std::string name = *f.get("brokerName");
  RemotingCommand req = remoting::make_request(rc::CONTROLLER_GET_SYNC_STATE_DATA, 0);
  req.body = remoting::body::write_name_list({name});
  auto reply = call_leader(s, *f.get("controllerAddress"), std::move(req));
  if (!reply) return fail("getSyncStateSet", reply.error());
  auto info = remoting::body::BrokerReplicasInfo::decode(reply->body);
  if (!info) return fail("getSyncStateSet", info.error());
  auto it = info->replicas_info_table.find(name);
  if (it == info->replicas_info_table.end()) {
    return fail("getSyncStateSet", fmt::format("the controllers know no broker group {}", name));
  }
  const auto& r = it->second;
  std::printf("\n#brokerName\t%s\n#MasterBrokerId\t%lld\n#MasterAddr\t%s\n#MasterEpoch\t%d\n#SyncStateSetEpoch\t%d\n"
              "#SyncStateSetNums\t%zu\n",
              name.c_str(), static_cast<long long>(r.master_broker_id), r.master_address.c_str(), r.master_epoch,
              r.sync_state_set_epoch, r.in_sync_replicas.size());
  print_replicas("InSyncReplica", name, r.in_sync_replicas);
  print_replicas("NotInSyncReplica", name, r.not_in_sync_replicas);
  return kExitOk;
}

int elect_master(const ParsedFlags& f, AdminSession& s) {
  auto id = f.int_in("brokerId", 1, std::numeric_limits<std::int64_t>::max(), 0);
  if (!id) return usage_error("electMaster", id.error().detail);
  RemotingCommand req = remoting::make_request(rc::CONTROLLER_ELECT_MASTER, 0);
  req.ext_fields = remoting::ElectMasterRequestHeader{*f.get("clusterName"), *f.get("brokerName"), *id, true,
                                                      std::nullopt}.to_fields();
  auto reply = call_leader(s, *f.get("controllerAddress"), std::move(req));
  if (!reply) return fail("electMaster", reply.error());
  auto h = remoting::ElectMasterResponseHeader::from_fields(reply->ext_fields);
  if (!h) return fail("electMaster", h.error());
  std::printf("\n#ClusterName\t%s", f.get("clusterName")->c_str());
  std::printf("\n#BrokerName\t%s", f.get("brokerName")->c_str());
  std::printf("\n#BrokerMasterAddr\t%s", h->master_address.value_or("").c_str());
  std::printf("\n#MasterEpoch\t%d", h->master_epoch.value_or(0));
  std::printf("\n#SyncStateSetEpoch\t%d\n", h->sync_state_set_epoch.value_or(0));
  return kExitOk;
}

int clean_broker_metadata(const ParsedFlags& f, AdminSession& s) {
  const std::string name = *f.get("brokerName");
  RemotingCommand req = remoting::make_request(rc::CLEAN_BROKER_DATA, 0);
  req.ext_fields = remoting::CleanControllerBrokerDataRequestHeader{
      f.get("clusterName"), name, f.get("brokerControllerIdsToClean"), f.has("cleanLivingBroker"),
      std::nullopt}.to_fields();
  auto reply = call_leader(s, *f.get("controllerAddress"), std::move(req));
  if (!reply) return fail("cleanBrokerMetadata", reply.error());
  std::printf("clear broker %s metadata from controller success! \n", name.c_str());
  return kExitOk;
}

int get_config(const ParsedFlags& f, AdminSession& s) {
  int failed = 0;
  for (const std::string& addr : split_addrs(*f.get("controllerAddress"))) {
    auto reply = s.run(call(&s.instance().rpc(), addr, remoting::make_request(rc::GET_CONTROLLER_CONFIG, 0)));
    if (!reply || reply->code != remoting::response_code::SUCCESS) {
      failed = fail("getControllerConfig", fmt::format("{}: {}", addr, reply ? reply->remark.value_or("") : reply.error().to_string()));
      continue;
    }
    auto settings = remoting::body::parse_properties_text(std::string(reply->body.begin(), reply->body.end()));
    if (!settings) {
      failed = fail("getControllerConfig", settings.error());
      continue;
    }
    std::printf("============%s============\n", addr.c_str());
    for (const auto& [key, value] : *settings) std::printf("%-50s=  %s\n", key.c_str(), value.c_str());
  }
  return failed == 0 ? kExitOk : kExitFailed;
}

int update_config(const ParsedFlags& f, AdminSession& s) {
  const std::string key = *f.get("key");
  const std::string value = *f.get("value");
  const std::string addrs = *f.get("controllerAddress");
  for (const std::string& addr : split_addrs(addrs)) {
    RemotingCommand req = remoting::make_request(rc::UPDATE_CONTROLLER_CONFIG, 0);
    const std::string text = remoting::body::properties_text({{key, value}});
    req.body.assign(text.begin(), text.end());
    auto reply = s.run(call(&s.instance().rpc(), addr, std::move(req)));
    if (!reply) return fail("updateControllerConfig", fmt::format("{}: {}", addr, reply.error().to_string()));
    if (reply->code != remoting::response_code::SUCCESS) {
      return fail("updateControllerConfig", fmt::format("{} answered {}: {}", addr, reply->code, reply->remark.value_or("")));
    }
  }
  std::printf("update controller config success!%s\n%s : %s\n", addrs.c_str(), key.c_str(), value.c_str());
  return kExitOk;
}

}  // namespace

Command get_controller_config_command() {
  return Command{"getControllerConfig", "each controller's settings",
                 {{'a', "controllerAddress", "IP:PORT;...", "the controllers to ask", true}},
                 get_config};
}

Command update_controller_config_command() {
  return Command{"updateControllerConfig", "change a setting on each controller (saved to its file)",
                 {{'a', "controllerAddress", "IP:PORT;...", "the controllers to change", true},
                  {'k', "key", "KEY", "e.g. scanNotActiveBrokerInterval", true},
                  {'v', "value", "VALUE", "the new value", true}},
                 update_config};
}

Command get_controller_metadata_command() {
  return Command{"getControllerMetaData", "a controller's group, leader and peers (controller mode)",
                 {{'a', "controllerAddress", "IP:PORT", "the controller to ask", true}},
                 get_metadata};
}

Command get_sync_state_set_command() {
  return Command{"getSyncStateSet", "a broker group's master, epochs and SyncStateSet, from the controller leader",
                 {{'a', "controllerAddress", "IP:PORT;...", "the controllers (the leader is found)", true},
                  {'b', "brokerName", "NAME", "the broker group", true}},
                 get_sync_state_set};
}

Command elect_master_command() {
  return Command{"electMaster", "make a replica its group's master (designated election by the controller leader)",
                 {{'a', "controllerAddress", "IP:PORT;...", "the controllers (the leader is found)", true},
                  {'c', "clusterName", "CLUSTER", "the group's cluster", true},
                  {0, "brokerName", "NAME", "the broker group (RocketMQ: -bn)", true},
                  {'b', "brokerId", "ID", "the replica's controller id (1, 2, ...)", true}},
                 elect_master};
}

Command clean_broker_metadata_command() {
  return Command{"cleanBrokerMetadata", "remove replicas (or a whole group) from the controllers",
                 {{'a', "controllerAddress", "IP:PORT;...", "the controllers (the leader is found)", true},
                  {0, "brokerName", "NAME", "the broker group (RocketMQ: -bn)", true},
                  {'b', "brokerControllerIdsToClean", "IDS", "\"1;2\"; none: the whole group"},
                  {'c', "clusterName", "CLUSTER", "the group's cluster"},
                  {'l', "cleanLivingBroker", "", "also replicas that are alive"}},
                 clean_broker_metadata};
}

}  // namespace ferry::mqadmin
