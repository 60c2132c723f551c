#include "daemon/proxy_conf.h"

#include <fmt/format.h>

#include "daemon/acl_keys.h"
#include "daemon/config_binder.h"
#include "daemon/tls_keys.h"

namespace ferry::daemon {

ProxyConf default_proxy_conf(const std::string& home) {
  ProxyConf c;
  c.data_dir = (home.empty() ? std::string(".") : home) + "/proxy";
  return c;
}

Result<ProxyConf> parse_proxy_conf(const PropertiesFile& file, const std::string& home) {
  ProxyConf c = default_proxy_conf(home);
  proxy::ProxyConfig& p = c.proxy;
  ConfigBinder b;
  b.bind("namesrvAddr", [&c](std::string_view v) -> Status {
    auto addrs = parse_namesrv_addr(v);
    if (!addrs) return std::move(addrs).error();
    c.namesrv_addrs = std::move(*addrs);
    return Status();
  });
  b.bind_int("grpcServerPort", p.route.grpc_port, 1, 65535);
  b.bind("proxyMode", [](std::string_view v) -> Status {
    if (v == "CLUSTER" || v == "cluster") return Status();
    return Error(Errc::invalid_argument,
                 fmt::format("\"{}\": only CLUSTER (a proxy in front of brokers) is supported; LOCAL runs a broker "
                             "inside the proxy, which mqproxy does not",
                             v));
  });
  b.bind_int("maxMessageSize", p.send.max_body_bytes, 0, 1'073'741'824);
  b.bind_bool("enableMessageBodyEmptyCheck", p.send.refuse_empty_body);
  b.bind_int("userPropertyMaxNum", p.send.user_properties_max, 1, 1'000'000);
  b.bind_int("maxUserPropertySize", p.send.user_properties_bytes_max, 1, 1'073'741'824);
  b.bind_int("maxMessageGroupSize", p.send.message_group_bytes_max, 1, 1'000'000);
  b.bind_int("maxDelayTimeMills", p.send.max_delay_ms, 0, std::int64_t{10} * 365 * 86'400'000);
  b.bind_int("maxTransactionRecoverySecond", p.send.transaction_recovery_seconds_max, 1, 86'400 * 30);
  b.bind_bool("useEndpointPortFromRequest", p.route.use_endpoint_port_from_request);
  b.bind_ms("grpcClientConsumerMinLongPollingTimeoutMillis", p.min_long_polling, 0, 3'600'000);
  b.bind_ms("grpcClientConsumerMaxLongPollingTimeoutMillis", p.max_long_polling, 0, 3'600'000);
  b.bind_ms("defaultInvisibleTimeMills", p.default_invisible, 1'000, 86'400'000);
  b.bind_ms("minInvisibleTimeMillsForRecv", p.min_invisible, 0, 86'400'000);
  b.bind_ms("maxInvisibleTimeMills", p.max_invisible, 1'000, 7 * 86'400'000LL);
  b.bind_ms("transactionDataExpireMillis", p.transaction_data_expire, 1'000, 86'400'000);
  b.bind_int("transactionDataMaxNum", p.transaction_data_per_id_max, 1, 1'000'000);
  b.bind_int("grpcMaxInboundMessageSize", c.edge.max_inbound_bytes, 1024, 1'073'741'824);
  b.bind_ms("grpcClientIdleTimeMills", c.edge.client_idle, 1'000, 86'400'000);
  b.bind_string("dataDir", c.data_dir);
  b.bind_int("grpcCallsInFlightMax", c.edge.calls_in_flight_max, 1, 10'000'000);
  b.bind_int("grpcReceivesPerClientMax", c.edge.receives_per_client_max, 1, 1'000'000);
  b.bind_int("grpcTelemetryStreamsMax", c.edge.telemetry_streams_max, 1, 10'000'000);
  bind_tls_keys(b, c.tls, c.tls_config_file);
  AclKeys acl;
  bind_acl_keys(b, acl);  // listenAddress, aclEnable, aclFilePath, accessKey, secretKey
  b.ignore("rocketMQClusterName", "the proxy serves every cluster its NameServers know");
  b.ignore("proxyClusterName", "Ferry's proxies do not register themselves");
  b.ignore("remotingListenPort", "mqproxy serves gRPC only; remoting clients talk to the brokers");
  b.ignore("rocketmqHome", "Ferry does not read a RocketMQ installation");
  for (const char* key : {"grpcBossLoopNum", "grpcWorkerLoopNum", "grpcThreadPoolNums", "grpcThreadPoolQueueCapacity",
                          "producerProcessorThreadPoolNums", "consumerProcessorThreadPoolNums",
                          "topicRouteServiceThreadPoolNums", "grpcClientManagerThreadPoolNums"}) {
    b.ignore(key, "the proxy's logic runs on one event loop; gRPC keeps its own threads");
  }
  b.bind("topicRouteServiceCacheRefreshSeconds", [&p](std::string_view v) -> Status {
    auto n = parse_int_in(v, 0, 86'400);
    if (!n) return std::move(n).error();
    p.route_refresh = std::chrono::seconds(*n);
    return Status();
  });
  b.bind_int("topicRouteServiceCacheMaxNum", p.route_cache_max, 1, 10'000'000);
  for (const char* key : {"topicRouteServiceCacheExpiredSeconds", "topicConfigCacheExpiredSeconds", "topicConfigCacheRefreshSeconds",
                          "topicConfigCacheMaxNum", "subscriptionGroupConfigCacheExpiredSeconds",
                          "subscriptionGroupConfigCacheRefreshSeconds", "subscriptionGroupConfigCacheMaxNum"}) {
    b.ignore(key, "the proxy keeps no topic config or subscription group cache; a route is asked again after topicRouteServiceCacheRefreshSeconds");
  }
  auto applied = b.apply(file);
  if (!applied) return std::move(applied).error();
  c.warnings = std::move(applied->warnings);
  FERRY_TRY(check_acl_keys(acl, file.file));
  c.credentials = acl.credentials;
  c.acl_enable = acl.enable;
  c.acl_file = acl_file_of(acl, file.file);
  if (!acl.listen_address.empty()) c.edge.listen_address = acl.listen_address;
  if (p.min_long_polling > p.max_long_polling) {
    return config_error(file.file, 0, "grpcClientConsumerMinLongPollingTimeoutMillis",
                        "is more than grpcClientConsumerMaxLongPollingTimeoutMillis");
  }
  if (c.tls.server.mode == TlsServerMode::permissive) {
    return config_error(file.file, 0, "tls.server.mode",
                        "permissive is not served on the gRPC port (gRPC takes TLS or plaintext on a port, not both): "
                        "use enforcing or disabled");
  }
  if (p.min_invisible > p.max_invisible) {
    return config_error(file.file, 0, "minInvisibleTimeMillsForRecv", "is more than maxInvisibleTimeMills");
  }
  return c;
}

}  // namespace ferry::daemon
