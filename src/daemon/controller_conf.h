// controller.conf: a controller's properties file (key=value, see properties_file.h) mapped onto
// ControllerConfig, with RocketMQ 5's keys (docs/controller.md): controllerDLegerGroup,
// controllerDLegerPeers ("n0-127.0.0.1:9878;n1-..."), controllerDLegerSelfId, controllerStorePath
// (under dataDir unless absolute), scanNotActiveBrokerInterval (ms), enableElectUncleanMaster,
// notifyBrokerRoleChanged; Ferry's dataDir (logs/ and the store path go there; default
// $HOME/controller). The same keys in namesrv.conf, with enableControllerInNamesrv=true, run a
// controller inside mqnamesrv. A bad value is an error "{file}:{line}: {key}: {what}"; a peer list
// that names no controller, names one twice or lacks the self id is an error naming the file.
#pragma once

#include <string>
#include <vector>

#include "controller/controller_config.h"
#include "daemon/config_binder.h"
#include "daemon/metrics_keys.h"
#include "daemon/properties_file.h"
#include "runtime/result.h"

namespace ferry::daemon {

struct ControllerConf {
  controller::ControllerConfig controller;
  std::string data_dir;               // logs in {data_dir}/logs, Raft files in {data_dir}/{storePath}/raft
  std::vector<std::string> warnings;  // for the log, one line each
  MetricsExporterConf metrics;        // metricsExporterType, metricsPromExporter* (daemon/metrics_keys.h)
};

ControllerConf default_controller_conf(const std::string& home);
Result<ControllerConf> parse_controller_conf(const PropertiesFile& file, const std::string& home);

// The controller's keys on `b` (also used by namesrv.conf, which binds
// scanNotActiveBrokerInterval itself: `with_scan` false); `peers_text` receives
// controllerDLegerPeers, to be finished by finish_controller_config().
void bind_controller_keys(ConfigBinder& b, controller::ControllerConfig& c, std::string& peers_text,
                          bool with_scan = true);
Status finish_controller_config(const std::string& file, const std::string& peers_text,
                                controller::ControllerConfig& c);

}  // namespace ferry::daemon
