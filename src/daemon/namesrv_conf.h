// namesrv.conf: the NameServer's properties file (key=value, see properties_file.h) mapped onto
// NameServerConfig, plus where the daemon keeps its logs.
//
// Keys: listenPort (9876), orderMessageEnable (false), scanNotActiveBrokerInterval (ms, 10000),
// brokerChannelExpiredTime (ms, 120000), the server's bounds maxConnections (16384) and
// serverChannelMaxIdleTimeSeconds (120; daemon/server_keys.h), RocketMQ's tls.* keys
// (daemon/tls_keys.h), Ferry's dataDir (logs/ go there; default $HOME/namesrv), and
// listenAddress (0.0.0.0), aclEnable, aclFilePath (daemon/acl_keys.h). RocketMQ's other
// NameServer keys (kvConfigPath, thread pools, ...) are accepted
// with a warning saying why they do not apply; unknown keys with a warning naming file, line and
// key; invalid values are errors "{file}:{line}: {key}: {what}". enableControllerInNamesrv and the
// controller's keys (daemon/controller_conf.h) embed a controller.
#pragma once

#include <string>
#include <vector>

#include "controller/controller_config.h"
#include "daemon/metrics_keys.h"
#include "daemon/properties_file.h"
#include "namesrv/namesrv_config.h"
#include "runtime/asio/tls_options.h"
#include "runtime/result.h"

namespace ferry::daemon {

struct NamesrvConf {
  namesrv::NameServerConfig namesrv;
  std::string data_dir;               // the node's data root; logs in {data_dir}/logs
  // The plain_acl.yml (aclFilePath against the folder of the file; daemon/acl_keys.h);
  // namesrv.acl_file_path is its name within that folder.
  std::string acl_file = "./plain_acl.yml";
  std::vector<std::string> warnings;  // for the log, one line each
  TlsOptions tls;                     // the tls.* keys (daemon/tls_keys.h)
  std::string tls_config_file;        // tls.config.file: applied by finish_tls at start-up
  // metricsExporterType, metricsPromExporter* (daemon/metrics_keys.h): one endpoint for the
  // NameServer and, with enableControllerInNamesrv, its controller.
  MetricsExporterConf metrics;
  // enableControllerInNamesrv=true: a controller runs in the same process (daemon/controller_conf.h
  // keys; scanNotActiveBrokerInterval is shared with the NameServer's).
  bool controller_enabled = false;
  controller::ControllerConfig controller;
};

NamesrvConf default_namesrv_conf(const std::string& home);
Result<NamesrvConf> parse_namesrv_conf(const PropertiesFile& file, const std::string& home);

}  // namespace ferry::daemon
