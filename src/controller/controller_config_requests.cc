// UPDATE_CONTROLLER_CONFIG (1009) and GET_CONTROLLER_CONFIG (1010), on every controller: its
// settings as properties text (RocketMQ 5's ControllerManager). The quorum's shape (group, peers,
// self id, store path) cannot change while it runs; RocketMQ's blacklisted keys (configBlackList,
// configStorePath, rocketmqHome) are refused with NO_PERMISSION as RocketMQ does.
#include <fmt/format.h>

#include <functional>
#include <vector>

#include "controller/controller.h"
#include "remoting/body/properties_text.h"
#include "remoting/decimal_text.h"

namespace ferry::controller {
namespace {

struct ControllerKey {
  std::string_view key;
  std::function<std::string(const ControllerConfig&)> get;
  std::function<Status(ControllerConfig&, std::string_view)> set;  // nullptr: fixed while running
};

std::string ms_text(Duration d) {
  return std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(d).count());
}

Status set_bool(bool& field, std::string_view key, std::string_view v) {
  const std::optional<bool> b = remoting::parse_bool(v);
  if (!b) return Error(Errc::invalid_argument, fmt::format("{}: \"{}\" is not true or false", key, v));
  field = *b;
  return {};
}

const std::vector<ControllerKey>& keys() {
  static const std::vector<ControllerKey> table = {
      {"controllerDLegerGroup", [](const ControllerConfig& c) { return c.group; }, nullptr},
      {"controllerDLegerPeers",
       [](const ControllerConfig& c) {
         std::string out;
         for (const ControllerPeer& p : c.peers) out += fmt::format("{}{}-{}", out.empty() ? "" : ";", p.name, p.address);
         return out;
       },
       nullptr},
      {"controllerDLegerSelfId", [](const ControllerConfig& c) { return c.self; }, nullptr},
      {"controllerStorePath", [](const ControllerConfig& c) { return c.store_path; }, nullptr},
      {"scanNotActiveBrokerInterval", [](const ControllerConfig& c) { return ms_text(c.scan_not_active_broker_interval); },
       [](ControllerConfig& c, std::string_view v) -> Status {
         const std::optional<std::int64_t> ms = remoting::parse_int64(v);
         if (!ms || *ms < 100 || *ms > 3'600'000) {
           return Error(Errc::invalid_argument, fmt::format("scanNotActiveBrokerInterval: \"{}\" is not in [100, 3600000] ms", v));
         }
         c.scan_not_active_broker_interval = std::chrono::milliseconds(*ms);
         return {};
       }},
      {"enableElectUncleanMaster", [](const ControllerConfig& c) { return std::string(c.enable_elect_unclean_master ? "true" : "false"); },
       [](ControllerConfig& c, std::string_view v) { return set_bool(c.enable_elect_unclean_master, "enableElectUncleanMaster", v); }},
      {"notifyBrokerRoleChanged", [](const ControllerConfig& c) { return std::string(c.notify_broker_role_changed ? "true" : "false"); },
       [](ControllerConfig& c, std::string_view v) { return set_bool(c.notify_broker_role_changed, "notifyBrokerRoleChanged", v); }},
  };
  return table;
}

const ControllerKey* find_key(std::string_view key) {
  for (const ControllerKey& k : keys()) {
    if (k.key == key) return &k;
  }
  return nullptr;
}

}  // namespace

Task<Controller::Reply> Controller::update_config(remoting::RequestContext ctx) {
  const std::string text(ctx.request.body.begin(), ctx.request.body.end());
  auto changes = remoting::body::parse_properties_text(text);
  auto refuse = [&](std::int32_t code, std::string what) {
    return remoting::make_response(ctx.request, code, "updateControllerConfig: " + std::move(what));
  };
  if (!changes.ok()) co_return refuse(code::SYSTEM_ERROR, changes.error().detail);
  for (const auto& [key, value] : *changes) {
    if (key == "configBlackList" || key == "configStorePath" || key == "rocketmqHome") {
      co_return remoting::make_response(ctx.request, code::NO_PERMISSION, "Can not update config in black list.");
    }
  }
  ControllerConfig trial = config_;  // every change is checked before any is applied
  for (const auto& [key, value] : *changes) {
    const ControllerKey* k = find_key(key);
    if (k == nullptr) co_return refuse(code::SYSTEM_ERROR, fmt::format("key '{}' is not a controller setting Ferry knows", key));
    if (!k->set) {
      co_return refuse(code::SYSTEM_ERROR, fmt::format("key '{}' cannot change while the controller runs "
                                                       "(edit its configuration file and restart)", key));
    }
    if (Status s = k->set(trial, value); !s.ok()) co_return refuse(code::SYSTEM_ERROR, s.error().detail);
  }
  config_ = std::move(trial);
  if (!changes->empty()) {
    rt_.log().info("updateControllerConfig: {}", remoting::body::properties_text(*changes));
    if (persister_) {
      if (Status p = persister_(*changes); !p.ok()) {
        co_return refuse(code::SYSTEM_ERROR, "applied, but not saved to the configuration file: " + p.error().to_string());
      }
    }
  }
  co_return remoting::make_response(ctx.request, code::SUCCESS);
}

Task<Controller::Reply> Controller::get_config(remoting::RequestContext ctx) {
  std::map<std::string, std::string> settings;
  for (const ControllerKey& k : keys()) settings.emplace(std::string(k.key), k.get(config_));
  remoting::RemotingCommand reply = remoting::make_response(ctx.request, code::SUCCESS);
  const std::string text = remoting::body::properties_text(settings);
  reply.body.assign(text.begin(), text.end());
  co_return reply;
}

}  // namespace ferry::controller
