#include "daemon/metrics_endpoint.h"

#include <prometheus/metric_family.h>
#include <prometheus/text_serializer.h>

#include <atomic>
#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <limits>
#include <optional>
#include <sstream>
#include <thread>

#include <fmt/format.h>

namespace ferry::daemon {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

constexpr std::size_t kConnectionsMax = 64;
constexpr std::uint32_t kHeaderLimit = 8 * 1024;
constexpr auto kIoTimeout = std::chrono::seconds(30);
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

// Members in this order: the io_context outlives the acceptor and the thread, and what its
// pending handlers' sessions touch when it destroys them (sessions) outlives it.
struct MetricsEndpoint::Impl {
  Executor& loop;
  std::function<metrics::Snapshot()> collect;
  // False from the start of the destructor. Read on the loop thread only (so is the destructor
  // run), before a posted collect touches anything of the endpoint's.
  std::shared_ptr<bool> alive = std::make_shared<bool>(true);
  std::size_t sessions = 0;  // the I/O thread's (and the destructor's once it joined)
  std::string host;
  asio::io_context ioc{1};
  tcp::acceptor acceptor{ioc};
  std::thread thread;

  Impl(Executor& l, std::function<metrics::Snapshot()> c) : loop(l), collect(std::move(c)) {}
  void accept();
};

namespace {

class Session : public std::enable_shared_from_this<Session> {
 public:
  Session(MetricsEndpoint::Impl& impl, tcp::socket socket)
      : impl_(impl), stream_(std::move(socket)), collect_timer_(impl.ioc) {
    ++impl_.sessions;
  }
  ~Session() { --impl_.sessions; }

  void read() {
    parser_.emplace();
    parser_->header_limit(kHeaderLimit);
    parser_->body_limit(0);
    stream_.expires_after(kIoTimeout);
    http::async_read(stream_, buffer_, *parser_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      self->on_read(ec);
    });
  }

 private:
  void on_read(beast::error_code ec) {
    if (ec == http::error::end_of_stream) {
      close();
      return;
    }
    if (ec) {
      // A request over the limits gets its reason; a timeout or a reset just ends the connection.
      if (ec == http::error::header_limit || ec == http::error::body_limit) {
        keep_alive_ = false;
        reply(http::status::bad_request, "text/plain", fmt::format("bad request: {}\n", ec.message()), false);
      } else {
        close();
      }
      return;
    }
    const auto& req = parser_->get();
    version_ = req.version();
    keep_alive_ = req.keep_alive();
    head_ = req.method() == http::verb::head;
    const std::string_view target(req.target().data(), req.target().size());
    const std::string_view path = target.substr(0, target.find('?'));
    if (req.method() != http::verb::get && !head_) {
      reply(http::status::method_not_allowed, "text/plain", "only GET and HEAD are served here\n", false);
      return;
    }
    if (path == "/metrics") {
      scrape();
    } else if (path == "/") {
      reply(http::status::ok, "text/html; charset=utf-8",
            "<html><head><title>Ferry metrics</title></head><body><a href=\"/metrics\">/metrics</a></body></html>\n",
            false);
    } else {
      reply(http::status::not_found, "text/plain", fmt::format("no such path: {} (metrics are at /metrics)\n", path),
            false);
    }
  }

  // Posts the collect to the node's loop; the snapshot comes back to the I/O thread. The timer
  // keeps the session alive meanwhile, and answers 503 when the loop is too slow.
  void scrape() {
    waiting_ = true;
    collect_timer_.expires_after(kCollectTimeout);
    collect_timer_.async_wait([self = shared_from_this()](beast::error_code ec) {
      if (ec || !self->waiting_) return;
      self->waiting_ = false;
      self->reply(http::status::service_unavailable, "text/plain", "the node did not answer within 10 s\n", false);
    });
    std::weak_ptr<Session> weak = shared_from_this();
    MetricsEndpoint::Impl* impl = &impl_;
    impl_.loop.post([impl, alive = impl_.alive, weak] {
      if (!*alive) return;  // the endpoint is gone (its destructor runs on this thread)
      auto snapshot = std::make_shared<metrics::Snapshot>(impl->collect());
      asio::post(impl->ioc, [weak, snapshot] {
        auto self = weak.lock();
        if (!self || !self->waiting_) return;
        self->waiting_ = false;
        self->collect_timer_.cancel();
        self->reply(http::status::ok, kTextFormat, prometheus_text(*snapshot), true);
      });
    });
  }

  void reply(http::status status, const char* content_type, std::string body, bool keep) {
    res_ = {};
    res_.version(version_);
    res_.result(status);
    res_.set(http::field::server, "ferry");
    res_.set(http::field::content_type, content_type);
    res_.keep_alive(keep && keep_alive_);
    if (head_) {
      res_.content_length(body.size());
    } else {
      res_.body() = std::move(body);
      res_.prepare_payload();
    }
    stream_.expires_after(kIoTimeout);
    http::async_write(stream_, res_, [self = shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec || !self->res_.keep_alive()) {
        self->close();
        return;
      }
      self->read();
    });
  }

  void close() {
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.socket().close(ignored);
  }

  MetricsEndpoint::Impl& impl_;
  beast::tcp_stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::empty_body>> parser_;
  http::response<http::string_body> res_;
  asio::steady_timer collect_timer_;
  unsigned version_ = 11;
  bool keep_alive_ = true;
  bool head_ = false;
  bool waiting_ = false;
};

}  // namespace

void MetricsEndpoint::Impl::accept() {
  acceptor.async_accept([this](beast::error_code ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted) return;
    if (!ec) {
      if (sessions >= kConnectionsMax) {
        beast::error_code ignored;
        socket.close(ignored);  // over the cap: closed at once
      } else {
        std::make_shared<Session>(*this, std::move(socket))->read();
      }
    }
    accept();
  });
}

Result<std::unique_ptr<MetricsEndpoint>> MetricsEndpoint::start(Executor& loop, std::function<metrics::Snapshot()> collect,
                                                                const std::string& host, std::uint16_t port) {
  auto impl = std::make_unique<Impl>(loop, std::move(collect));
  beast::error_code ec;
  const auto address = asio::ip::make_address(host, ec);
  if (ec) return Error(Errc::invalid_argument, fmt::format("metrics endpoint: \"{}\" is not an IP address", host));
  const tcp::endpoint at(address, port);
  impl->acceptor.open(at.protocol(), ec);
  if (!ec) impl->acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) impl->acceptor.bind(at, ec);
  if (!ec) impl->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    const std::string where = fmt::format("{}:{}", host, port);
    if (ec == asio::error::address_in_use) {
      return Error(Errc::address_in_use, fmt::format("metrics endpoint: address in use: {} (metricsPromExporterPort)", where));
    }
    return Error(Errc::io_error, fmt::format("metrics endpoint: cannot listen on {}: {}", where, ec.message()));
  }
  impl->host = host;
  impl->accept();
  Impl* raw = impl.get();
  impl->thread = std::thread([raw] { raw->ioc.run(); });
  return std::unique_ptr<MetricsEndpoint>(new MetricsEndpoint(std::move(impl)));
}

MetricsEndpoint::MetricsEndpoint(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

MetricsEndpoint::~MetricsEndpoint() {
  *impl_->alive = false;
  impl_->ioc.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

Result<std::unique_ptr<MetricsEndpoint>> start_metrics_endpoint(const MetricsExporterConf& conf,
                                                                const std::string& default_host, Executor& loop,
                                                                std::function<metrics::Snapshot()> collect) {
  if (!conf.enabled) return std::unique_ptr<MetricsEndpoint>();
  return MetricsEndpoint::start(loop, std::move(collect), conf.host.empty() ? default_host : conf.host, conf.port);
}

std::uint16_t MetricsEndpoint::port() const { return impl_->acceptor.local_endpoint().port(); }

std::string MetricsEndpoint::address() const { return fmt::format("{}:{}", impl_->host, port()); }

}  // namespace ferry::daemon
