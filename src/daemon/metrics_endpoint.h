// MetricsEndpoint: a daemon's Prometheus endpoint (metricsExporterType=PROM, daemon/metrics_keys.h):
// an HttpServer (daemon/http_server.h: its own thread, its limits) that answers
//   GET /metrics (or HEAD)  200, the node's metrics in Prometheus's text format 0.0.4
//   GET /                   200, a short page that links /metrics
//   anything else           404 (a path) or 405 (a method), with a one-line reason
// Keep-alive as the client asks. Bounds: HttpServer's defaults (64 connections at once, 8 KiB of
// headers and no body, 30 s to send a request and to take a reply).
//
// The node's state belongs to its loop thread, so a scrape posts `collect` to the node's
// Executor (Executor::post is thread-safe); the snapshot comes back to this thread, which writes
// the text (prometheus-cpp's TextSerializer) and the reply. A scrape thus costs the loop only the
// snapshot's copy. A node whose loop does not answer within 10 s gets 503.
//
// What it exposes: counts, sizes, latencies, and the names of topics, consumer groups and slave
// addresses that label them; never a message, a property or a credential. It has no TLS and no
// ACL of its own (as RocketMQ's Prometheus exporter): bind it to an address only the monitoring
// network reaches (metricsPromExporterHost), as docs/operations.md says.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "common/metrics.h"
#include "daemon/http_server.h"
#include "daemon/metrics_keys.h"
#include "runtime/executor.h"
#include "runtime/result.h"

namespace ferry::daemon {

// The snapshot in Prometheus's text format (version 0.0.4): the common labels first on every
// series, then the family's; histograms as cumulative _bucket{le=...} lines with _sum and _count.
std::string prometheus_text(const metrics::Snapshot& snapshot);

class MetricsEndpoint {
 public:
  // Listens on host:port (port 0: any free port, see port()) and starts the thread. `collect` runs
  // on `loop`'s thread. Errors: address_in_use, invalid_argument (a host that does not parse),
  // io_error.
  static Result<std::unique_ptr<MetricsEndpoint>> start(Executor& loop, std::function<metrics::Snapshot()> collect,
                                                        const std::string& host, std::uint16_t port);
  // Stops accepting, closes the connections and joins the thread. Call it on the loop thread
  // (or with the loop stopped): a collect posted earlier then finds the endpoint gone and does
  // nothing.
  ~MetricsEndpoint();
  MetricsEndpoint(const MetricsEndpoint&) = delete;
  MetricsEndpoint& operator=(const MetricsEndpoint&) = delete;

  std::uint16_t port() const;
  // "host:port".
  std::string address() const;

  struct Impl;

 private:
  explicit MetricsEndpoint(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// A daemon's endpoint as its metrics keys say: null when metricsExporterType is not PROM, else
// started on metricsPromExporterHost (or `default_host`, where the daemon's remoting port binds)
// and metricsPromExporterPort. Errors: start()'s.
Result<std::unique_ptr<MetricsEndpoint>> start_metrics_endpoint(const MetricsExporterConf& conf,
                                                                const std::string& default_host, Executor& loop,
                                                                std::function<metrics::Snapshot()> collect);

}  // namespace ferry::daemon
