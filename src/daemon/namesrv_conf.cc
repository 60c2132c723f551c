#include "daemon/namesrv_conf.h"

#include "daemon/acl_keys.h"
#include "daemon/conf_folder.h"
#include "daemon/controller_conf.h"
#include "daemon/config_binder.h"
#include "daemon/server_keys.h"
#include "daemon/tls_keys.h"

namespace ferry::daemon {

NamesrvConf default_namesrv_conf(const std::string& home) {
  NamesrvConf c;
  c.data_dir = (home.empty() ? std::string(".") : home) + "/namesrv";
  return c;
}

Result<NamesrvConf> parse_namesrv_conf(const PropertiesFile& file, const std::string& home) {
  NamesrvConf c = default_namesrv_conf(home);
  namesrv::NameServerConfig& n = c.namesrv;
  ConfigBinder b;
  b.bind_int("listenPort", n.listen_port, 1, 65535);
  b.bind_bool("orderMessageEnable", n.order_message_enable);
  b.bind_ms("scanNotActiveBrokerInterval", n.scan_interval, 100, 3'600'000);
  b.bind_ms("brokerChannelExpiredTime", n.broker_expiry, 1'000, 86'400'000);
  b.bind_string("dataDir", c.data_dir);
  bind_server_keys(b, n.rpc);  // maxConnections, serverChannelMaxIdleTimeSeconds
  bind_tls_keys(b, c.tls, c.tls_config_file);
  AclKeys acl;
  bind_acl_keys(b, acl);  // listenAddress, aclEnable, aclFilePath (accessKey/secretKey: unused here)
  bind_metrics_keys(b, c.metrics);
  b.ignore("rocketmqHome", "Ferry does not read a RocketMQ installation");
  b.ignore("kvConfigPath", "Ferry keeps KV settings in memory, like routes");
  b.ignore("configStorePath", "Ferry does not write the NameServer's configuration back");
  for (const char* key : {"serverWorkerThreads", "serverCallbackExecutorThreads", "serverSelectorThreads",
                          "defaultThreadPoolNums", "clientRequestThreadPoolNums"}) {
    b.ignore(key, "Ferry runs each node on one event loop; thread pools do not apply");
  }
  std::string controller_peers;
  b.bind_bool("enableControllerInNamesrv", c.controller_enabled);
  bind_controller_keys(b, c.controller, controller_peers, /*with_scan=*/false);
  auto applied = b.apply(file);
  if (!applied) return std::move(applied).error();
  c.warnings = std::move(applied->warnings);
  if (c.controller_enabled) {
    c.controller.scan_not_active_broker_interval = n.scan_interval;
    FERRY_TRY(finish_controller_config(file.file, controller_peers, c.controller));
  }
  if (!acl.credentials.empty()) {
    c.warnings.push_back(file.file + ": accessKey/secretKey are ignored: a NameServer calls nobody");
  }
  n.acl_enable = acl.enable;
  c.acl_file = acl_file_of(acl, file.file);
  n.acl_file_path = split_folder(c.acl_file).second;
  if (!acl.listen_address.empty()) n.listen_host = acl.listen_address;
  return c;
}

}  // namespace ferry::daemon
