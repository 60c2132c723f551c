#include "daemon/metrics_keys.h"

#include <fmt/format.h>


namespace ferry::daemon {

void bind_metrics_keys(ConfigBinder& b, MetricsExporterConf& conf) {
  b.bind("metricsExporterType", [&conf](std::string_view v) -> Status {
    if (v == "DISABLE") {
      conf.enabled = false;
    } else if (v == "PROM") {
      conf.enabled = true;
    } else if (v == "OTLP_GRPC" || v == "LOG") {
      return Error(Errc::invalid_argument,
                   fmt::format("\"{}\" is RocketMQ's OpenTelemetry exporter, which Ferry does not have: use PROM (a "
                               "Prometheus endpoint; an OpenTelemetry collector can scrape it) or DISABLE",
                               v));
    } else {
      return Error(Errc::invalid_argument, fmt::format("\"{}\" is not one of DISABLE / PROM", v));
    }
    return Status();
  });
  b.bind("metricsPromExporterHost", [&conf](std::string_view v) -> Status {
    if (!v.empty()) FERRY_TRY(check_ipv4(v));
    conf.host = std::string(v);
    return Status();
  });
  b.bind_int("metricsPromExporterPort", conf.port, 1, 65535);
  const std::string otel = "an OpenTelemetry exporter setting; Ferry's exporter is Prometheus's text format (PROM)";
  for (const char* key : {"metricsLabel", "metricsInDelta", "metricsGrpcExporterTarget", "metricsGrpcExporterHeader",
                          "metricGrpcExporterTimeOutInMills", "metricGrpcExporterIntervalInMills",
                          "metricLoggingExporterIntervalInMills", "metricsOtelCardinalityLimit"}) {
    b.ignore(key, otel);
  }
}

}  // namespace ferry::daemon
