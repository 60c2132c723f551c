// broker.conf: RocketMQ's broker properties file (key=value, see properties_file.h) mapped onto
// BrokerConfig and its StoreConfig.
//
// Layout: `storePathRootDir` (RocketMQ's default $HOME/store) becomes the broker node's data
// root, and the store lives directly in it, as in RocketMQ: commitlog/, consumequeue/, index/,
// checkpoint, abort, config/ (topics.json, consumerOffset.json, ...). The daemon adds logs/.
// `storePathCommitLog` is accepted only when it names {storePathRootDir}/commitlog.
//
// Every RocketMQ key Ferry serves is listed in docs/operations.md with its unit (the file uses
// RocketMQ's units: ms for *Interval/*Mills/*Timeout, hours for fileReservedTime, bytes for sizes,
// percent for ratios). Keys RocketMQ knows but Ferry does not use (thread pools, brokerIP2, ACL,
// DLedger) are accepted with a warning saying why; unknown keys are accepted with a warning naming
// file, line and key. The tls.* keys are daemon/tls_keys.h's. `haListenPort` other than listenPort + 1 is a warning, and ignored: the HA
// port is always listenPort + 1, as RocketMQ 4.9's BrokerStartup overwrites it. Invalid values and inconsistent combinations are errors
// naming file, line and key (see config_binder.h), e.g.
//   "conf/broker.conf:6: brokerRole: \"MASTER\" is not one of ASYNC_MASTER / SYNC_MASTER / SLAVE".
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "broker/broker_config.h"
#include "daemon/metrics_keys.h"
#include "daemon/properties_file.h"
#include "runtime/asio/tls_options.h"
#include "runtime/result.h"

namespace ferry::daemon {

struct BrokerConf {
  broker::BrokerConfig broker;      // broker.store.root is "" (the store is the data root)
  std::string store_root_dir;       // storePathRootDir: the node's data root
  // The plain_acl.yml (aclFilePath resolved against the folder of the file; daemon/acl_keys.h);
  // broker.acl_file_path is its name within that folder.
  std::string acl_file;
  std::vector<std::string> warnings;  // for the log, one line each
  TlsOptions tls;                     // the tls.* keys (daemon/tls_keys.h)
  std::string tls_config_file;        // tls.config.file: applied by finish_tls at start-up
  MetricsExporterConf metrics;        // metricsExporterType, metricsPromExporter* (daemon/metrics_keys.h)
};

// The configuration with no file: RocketMQ's defaults, the store in {home}/store.
BrokerConf default_broker_conf(const std::string& home);

// Applies `file` over default_broker_conf(home). Errors: see above.
Result<BrokerConf> parse_broker_conf(const PropertiesFile& file, const std::string& home);

}  // namespace ferry::daemon
