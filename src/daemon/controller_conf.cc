#include "daemon/controller_conf.h"

#include <fmt/format.h>

namespace ferry::daemon {

ControllerConf default_controller_conf(const std::string& home) {
  ControllerConf c;
  c.data_dir = (home.empty() ? std::string(".") : home) + "/controller";
  return c;
}

void bind_controller_keys(ConfigBinder& b, controller::ControllerConfig& c, std::string& peers_text,
                          bool with_scan) {
  b.bind_string("controllerDLegerGroup", c.group);
  b.bind_string("controllerDLegerPeers", peers_text);
  b.bind_string("controllerDLegerSelfId", c.self);
  b.bind_string("controllerStorePath", c.store_path);
  if (with_scan) b.bind_ms("scanNotActiveBrokerInterval", c.scan_not_active_broker_interval, 100, 3'600'000);
  b.bind_bool("enableElectUncleanMaster", c.enable_elect_unclean_master);
  b.bind_bool("notifyBrokerRoleChanged", c.notify_broker_role_changed);
  b.ignore("controllerType", "Ferry's controllers replicate with Raft (libraft); DLedger and JRaft do not apply");
  b.ignore("isProcessReadEvent", "Ferry's controllers read the leader's applied state, behind its barrier");
}

Status finish_controller_config(const std::string& file, const std::string& peers_text,
                                controller::ControllerConfig& c) {
  auto peers = controller::ControllerConfig::parse_peers(peers_text);
  if (!peers) return Error(Errc::invalid_argument, fmt::format("{}: controllerDLegerPeers: {}", file, peers.error().detail));
  c.peers = std::move(*peers);
  Status valid = c.validate();
  if (!valid) return Error(Errc::invalid_argument, fmt::format("{}: {}", file, valid.error().detail));
  return {};
}

Result<ControllerConf> parse_controller_conf(const PropertiesFile& file, const std::string& home) {
  ControllerConf c = default_controller_conf(home);
  ConfigBinder b;
  std::string peers;
  bind_controller_keys(b, c.controller, peers);
  b.bind_string("dataDir", c.data_dir);
  bind_metrics_keys(b, c.metrics);
  b.ignore("rocketmqHome", "Ferry does not read a RocketMQ installation");
  auto applied = b.apply(file);
  if (!applied) return std::move(applied).error();
  c.warnings = std::move(applied->warnings);
  FERRY_TRY(finish_controller_config(file.file, peers, c.controller));
  return c;
}

}  // namespace ferry::daemon
