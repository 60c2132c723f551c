// The metrics exporter's keys, the same in broker.conf, namesrv.conf and controller.conf
// (RocketMQ 5's names; docs/operations.md "Monitoring"):
//   metricsExporterType      DISABLE (default, as in RocketMQ) or PROM: serve the Prometheus
//                            text format on http://{host}:{port}/metrics. RocketMQ's other
//                            exporters (OTLP_GRPC, LOG) are refused with an error naming PROM.
//   metricsPromExporterHost  the IPv4 address the endpoint binds; empty (default) = the address
//                            the daemon's remoting port binds (listenAddress, else brokerIP1 or
//                            the advertised host), so it is reachable where the daemon is.
//   metricsPromExporterPort  1..65535, default 5557.
// RocketMQ's OpenTelemetry tuning keys (metricsLabel, metricsInDelta, metricsGrpcExporter*,
// metricGrpcExporter*, metricLoggingExporterIntervalInMills, metricsOtelCardinalityLimit) are
// accepted with a warning saying why they do nothing here.
#pragma once

#include <cstdint>
#include <string>

#include "daemon/config_binder.h"

namespace ferry::daemon {

struct MetricsExporterConf {
  bool enabled = false;  // metricsExporterType=PROM
  std::string host;      // "" = the daemon's listen host
  std::uint16_t port = 5557;
};

// Binds the keys onto `conf`, which must outlive `b`'s apply().
void bind_metrics_keys(ConfigBinder& b, MetricsExporterConf& conf);

}  // namespace ferry::daemon
