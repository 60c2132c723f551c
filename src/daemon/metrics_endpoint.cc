#include "daemon/metrics_endpoint.h"

#include <prometheus/metric_family.h>
#include <prometheus/text_serializer.h>

#include <chrono>
#include <limits>
#include <sstream>

#include <fmt/format.h>

namespace ferry::daemon {

namespace {

constexpr auto kCollectTimeout = std::chrono::seconds(10);
constexpr const char* kTextFormat = "text/plain; version=0.0.4; charset=utf-8";

prometheus::MetricType prometheus_type(metrics::Type t) {
  switch (t) {
    case metrics::Type::counter: return prometheus::MetricType::Counter;
    case metrics::Type::gauge: return prometheus::MetricType::Gauge;
    case metrics::Type::histogram: return prometheus::MetricType::Histogram;
  }
  return prometheus::MetricType::Untyped;
}

}  // namespace

std::string prometheus_text(const metrics::Snapshot& snapshot) {
  std::vector<prometheus::MetricFamily> families;
  families.reserve(snapshot.families.size());
  for (const metrics::FamilySnapshot& f : snapshot.families) {
    prometheus::MetricFamily out;
    out.name = f.name;
    out.help = f.help;
    out.type = prometheus_type(f.type);
    out.metric.reserve(f.samples.size());
    for (const metrics::Sample& s : f.samples) {
      prometheus::ClientMetric m;
      m.label.reserve(snapshot.common_labels.size() + f.label_names.size());
      for (const auto& [name, value] : snapshot.common_labels) m.label.push_back({name, value});
      for (std::size_t i = 0; i < f.label_names.size() && i < s.label_values.size(); ++i) {
        m.label.push_back({f.label_names[i], s.label_values[i]});
      }
      switch (f.type) {
        case metrics::Type::counter: m.counter.value = s.value; break;
        case metrics::Type::gauge: m.gauge.value = s.value; break;
        case metrics::Type::histogram: {
          m.histogram.sample_count = static_cast<std::uint64_t>(s.value);
          m.histogram.sample_sum = s.sum;
          std::uint64_t cumulative = 0;
          for (std::size_t i = 0; i < s.bucket_counts.size(); ++i) {
            cumulative += s.bucket_counts[i];
            const double bound = i < f.bounds.size() ? f.bounds[i] : std::numeric_limits<double>::infinity();
            m.histogram.bucket.push_back({cumulative, bound});
          }
          break;
        }
      }
      out.metric.push_back(std::move(m));
    }
    families.push_back(std::move(out));
  }
  std::ostringstream text;
  prometheus::TextSerializer().Serialize(text, families);
  return std::move(text).str();
}

struct MetricsEndpoint::Impl {
  Executor& loop;
  std::function<metrics::Snapshot()> collect;
  // False from the start of the destructor. Read on the loop thread only (so is the destructor
  // run), before a posted collect touches anything of the endpoint's.
  std::shared_ptr<bool> alive = std::make_shared<bool>(true);
  std::unique_ptr<HttpServer> server;

  Impl(Executor& l, std::function<metrics::Snapshot()> c) : loop(l), collect(std::move(c)) {}

  // On the server's thread. A scrape posts the collect to the node's loop; the snapshot is
  // written out and answered from there (respond is thread-safe).
  void handle(const HttpRequest& req, HttpRespond respond) {
    if (req.path == "/metrics") {
      loop.post([this, alive = alive, respond = std::move(respond)] {
        if (!*alive) return;  // the endpoint is gone (its destructor runs on this thread)
        const metrics::Snapshot snapshot = collect();
        respond(HttpReply{200, kTextFormat, prometheus_text(snapshot), {}});
      });
    } else if (req.path == "/") {
      respond(HttpReply{200, "text/html; charset=utf-8",
                        "<html><head><title>Ferry metrics</title></head><body><a href=\"/metrics\">/metrics</a></body></html>\n",
                        {}});
    } else {
      respond(HttpReply{404, "text/plain; charset=utf-8",
                        fmt::format("no such path: {} (metrics are at /metrics)\n", req.path), {}});
    }
  }
};

Result<std::unique_ptr<MetricsEndpoint>> MetricsEndpoint::start(Executor& loop, std::function<metrics::Snapshot()> collect,
                                                                const std::string& host, std::uint16_t port) {
  auto impl = std::make_unique<Impl>(loop, std::move(collect));
  HttpServerOptions options;
  options.name = "metrics endpoint";
  options.port_key = "metricsPromExporterPort";
  options.reply_timeout = kCollectTimeout;
  options.reply_timeout_text = "the node did not answer within 10 s\n";
  Impl* raw = impl.get();
  Result<std::unique_ptr<HttpServer>> server =
      HttpServer::start(host, port, std::move(options), [raw](const HttpRequest& req, HttpRespond respond) {
        raw->handle(req, std::move(respond));
      });
  if (!server.ok()) return std::move(server).error();
  impl->server = std::move(*server);
  return std::unique_ptr<MetricsEndpoint>(new MetricsEndpoint(std::move(impl)));
}

MetricsEndpoint::MetricsEndpoint(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

MetricsEndpoint::~MetricsEndpoint() {
  *impl_->alive = false;
  impl_->server.reset();
}

Result<std::unique_ptr<MetricsEndpoint>> start_metrics_endpoint(const MetricsExporterConf& conf,
                                                                const std::string& default_host, Executor& loop,
                                                                std::function<metrics::Snapshot()> collect) {
  if (!conf.enabled) return std::unique_ptr<MetricsEndpoint>();
  return MetricsEndpoint::start(loop, std::move(collect), conf.host.empty() ? default_host : conf.host, conf.port);
}

std::uint16_t MetricsEndpoint::port() const { return impl_->server->port(); }

std::string MetricsEndpoint::address() const { return impl_->server->address(); }

}  // namespace ferry::daemon
