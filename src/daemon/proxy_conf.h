// proxy.conf: mqproxy's properties file (key=value, properties_file.h) mapped onto the proxy's
// core (proxy/messaging_core.h) and its gRPC edge. Keys carry RocketMQ 5's ProxyConfig names
// where RocketMQ has the setting (its proxy reads them from rmq-proxy.json; Ferry's daemons all
// read properties files), with RocketMQ's defaults:
//
//   namesrvAddr                 the NameServers, "ip:port;ip:port" (default 127.0.0.1:9876)
//   grpcServerPort              the gRPC port (8081)
//   proxyMode                   CLUSTER only (LOCAL runs a broker in the proxy: refused)
//   maxMessageSize              a body's limit in bytes (4194304), also the clients' max_body_size
//   enableMessageBodyEmptyCheck (true)
//   userPropertyMaxNum (128), maxUserPropertySize (16384), maxMessageGroupSize (64)
//   maxDelayTimeMills           the furthest delivery time of a DELAY message (86400000)
//   maxTransactionRecoverySecond (3600)
//   useEndpointPortFromRequest  (false: routes name grpcServerPort)
//   grpcClientConsumerMinLongPollingTimeoutMillis (5000), ...MaxLongPollingTimeoutMillis (20000)
//   defaultInvisibleTimeMills (60000), minInvisibleTimeMillsForRecv (10000),
//   maxInvisibleTimeMills (43200000)
//   transactionDataExpireMillis (30000), transactionDataMaxNum (15)
//   topicRouteServiceCacheRefreshSeconds  a route found this recently is used as it is (20)
//   topicRouteServiceCacheMaxNum  routes remembered so (20000)
//   grpcMaxInboundMessageSize   a request's limit in bytes (136314880)
//   grpcClientIdleTimeMills     a connection idle this long is closed (120000)
// Ferry's keys:
//   dataDir                     logs go to {dataDir}/logs (default $HOME/proxy)
//   listenAddress               the IPv4 address the gRPC port binds (0.0.0.0)
//   accessKey / secretKey       the proxy signs its remoting calls with these (ACL brokers)
//   aclEnable, aclFilePath      check RocketMQ 5 clients' signatures against the accounts of a
//                               plain_acl.yml (the brokers' file; daemon/acl_keys.h)
//   grpcCallsInFlightMax        calls being served at once (10000); past it TOO_MANY_REQUESTS
//   grpcReceivesPerClientMax    receives in flight per client id (64); past it TOO_MANY_REQUESTS
//   grpcTelemetryStreamsMax     Telemetry streams open at once (10000); past it RESOURCE_EXHAUSTED
//   tls.*                       RocketMQ's TLS keys (daemon/tls_keys.h): tls.server.* for the gRPC
//                               port (disabled or enforcing: gRPC serves TLS or plaintext on a
//                               port, not both, so permissive is refused), tls.enable and
//                               tls.client.* for the proxy's own connections to TLS brokers
// RocketMQ's proxy keys with no meaning here (thread pools, remoting listener, caches, ...) are
// accepted with a warning saying why; unknown keys with a warning naming file, line and key;
// invalid values are errors "{file}:{line}: {key}: {what}".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "daemon/properties_file.h"
#include "proxy/messaging_core.h"
#include "remoting/acl/signature.h"
#include "runtime/asio/tls_options.h"
#include "runtime/result.h"

namespace ferry::daemon {

// The gRPC edge's bounds (tools/mqproxy).
struct GrpcEdgeLimits {
  std::string listen_address = "0.0.0.0";
  std::int64_t max_inbound_bytes = 136'314'880;  // grpcMaxInboundMessageSize
  Duration client_idle = std::chrono::seconds(120);  // grpcClientIdleTimeMills
  std::size_t calls_in_flight_max = 10'000;
  std::size_t receives_per_client_max = 64;
  std::size_t telemetry_streams_max = 10'000;
};

struct ProxyConf {
  proxy::ProxyConfig proxy;
  GrpcEdgeLimits edge;
  std::vector<std::string> namesrv_addrs{"127.0.0.1:9876"};
  std::string data_dir;  // logs in {data_dir}/logs
  remoting::acl::Credentials credentials;  // accessKey / secretKey
  bool acl_enable = false;
  std::string acl_file;  // the plain_acl.yml (aclFilePath against the folder of the file)
  std::vector<std::string> warnings;  // for the log, one line each
  TlsOptions tls;                     // the tls.* keys
  std::string tls_config_file;        // tls.config.file: applied by finish_tls at start-up
};

ProxyConf default_proxy_conf(const std::string& home);
Result<ProxyConf> parse_proxy_conf(const PropertiesFile& file, const std::string& home);

}  // namespace ferry::daemon
