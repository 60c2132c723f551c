// The daemons' Prometheus endpoint (daemon/metrics_endpoint.h): the text format a scrape gets,
// and the HTTP server in front of a node's loop, asked over loopback as Prometheus asks it.
#include "daemon/metrics_endpoint.h"

#include <gtest/gtest.h>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <filesystem>
#include <thread>

#include "runtime/asio/asio_runtime.h"

namespace ferry::daemon {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

metrics::Snapshot sample_snapshot() {
  metrics::Registry r;
  r.set_common_labels({{"cluster", "C"}, {"node_type", "broker"}, {"node_id", "b"}});
  r.counter("rocketmq_messages_in_total", "Total number of incoming messages", {"topic"}).with({"a\"b\\c\nd"}).inc(3);
  r.gauge("rocketmq_topic_number", "Active topic number").only().set(2);
  auto& h = r.histogram("rocketmq_message_size", "Incoming messages size", {}, {1024, 4096});
  h.only().observe(100);
  h.only().observe(2000);
  h.only().observe(9000);
  return r.collect();
}

TEST(PrometheusTextTest, WritesTypesCommonLabelsCumulativeBucketsAndEscapedValues) {
  const std::string text = prometheus_text(sample_snapshot());
  EXPECT_NE(text.find("# HELP rocketmq_messages_in_total Total number of incoming messages\n"), std::string::npos) << text;
  EXPECT_NE(text.find("# TYPE rocketmq_messages_in_total counter\n"), std::string::npos) << text;
  EXPECT_NE(text.find("rocketmq_messages_in_total{cluster=\"C\",node_type=\"broker\",node_id=\"b\",topic=\"a\\\"b\\\\c\\nd\"} 3\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("# TYPE rocketmq_topic_number gauge\n"), std::string::npos) << text;
  EXPECT_NE(text.find("rocketmq_topic_number{cluster=\"C\",node_type=\"broker\",node_id=\"b\"} 2\n"), std::string::npos) << text;
  EXPECT_NE(text.find("rocketmq_message_size_bucket{cluster=\"C\",node_type=\"broker\",node_id=\"b\",le=\"1024\"} 1\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("rocketmq_message_size_bucket{cluster=\"C\",node_type=\"broker\",node_id=\"b\",le=\"4096\"} 2\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("rocketmq_message_size_bucket{cluster=\"C\",node_type=\"broker\",node_id=\"b\",le=\"+Inf\"} 3\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("rocketmq_message_size_sum{cluster=\"C\",node_type=\"broker\",node_id=\"b\"} 11100\n"), std::string::npos)
      << text;
}

// A node loop on its own thread, an endpoint in front of it, and a plain HTTP client.
class MetricsEndpointTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = std::filesystem::temp_directory_path() / ("ferry-metrics-endpoint-" + std::to_string(::getpid()));
    AsioRuntime::Options o;
    o.node_name = "metrics-test";
    o.data_root = root_.string();
    rt_ = std::make_unique<AsioRuntime>(o);
    auto ep = MetricsEndpoint::start(rt_->executor(), [this] {
      ++collects_;
      return sample_snapshot();
    }, "127.0.0.1", 0);
    ASSERT_TRUE(ep.ok()) << ep.error().to_string();
    endpoint_ = std::move(*ep);
    loop_ = std::thread([this] { rt_->run(); });
  }
  void TearDown() override {
    rt_->stop();
    if (loop_.joinable()) loop_.join();
    endpoint_.reset();
    rt_.reset();
    std::filesystem::remove_all(root_);
  }

  // One request on `stream` (connected), its response.
  static http::response<http::string_body> ask(beast::tcp_stream& stream, http::verb verb, const std::string& target,
                                               bool keep_alive = true) {
    http::request<http::empty_body> req{verb, target, 11};
    req.set(http::field::host, "127.0.0.1");
    req.keep_alive(keep_alive);
    http::write(stream, req);
    beast::flat_buffer buffer;
    http::response_parser<http::string_body> parser;
    parser.skip(verb == http::verb::head);
    http::read(stream, buffer, parser);
    return parser.release();
  }
  std::unique_ptr<beast::tcp_stream> connect() {
    auto stream = std::make_unique<beast::tcp_stream>(client_ioc_);
    stream->connect(asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), endpoint_->port()));
    stream->expires_after(std::chrono::seconds(20));
    return stream;
  }

  std::filesystem::path root_;
  std::unique_ptr<AsioRuntime> rt_;
  std::unique_ptr<MetricsEndpoint> endpoint_;
  std::thread loop_;
  std::atomic<int> collects_{0};
  asio::io_context client_ioc_;
};

TEST_F(MetricsEndpointTest, ServesTheTextFormatOnKeptAliveConnections) {
  auto stream = connect();
  for (int i = 0; i < 2; ++i) {  // one connection, two scrapes
    auto res = ask(*stream, http::verb::get, "/metrics");
    EXPECT_EQ(res.result(), http::status::ok);
    EXPECT_EQ(res[http::field::content_type], "text/plain; version=0.0.4; charset=utf-8");
    EXPECT_EQ(res.body(), prometheus_text(sample_snapshot()));
  }
  EXPECT_EQ(collects_.load(), 2) << "each scrape collects on the node's loop";
  auto head = ask(*stream, http::verb::head, "/metrics");
  EXPECT_EQ(head.result(), http::status::ok);
  EXPECT_EQ(head[http::field::content_length], std::to_string(prometheus_text(sample_snapshot()).size()));
}

TEST_F(MetricsEndpointTest, OtherPathsAndMethodsGetAReason) {
  auto stream = connect();
  auto missing = ask(*stream, http::verb::get, "/nothing", false);
  EXPECT_EQ(missing.result(), http::status::not_found);
  EXPECT_NE(missing.body().find("/metrics"), std::string::npos) << missing.body();
  stream = connect();
  auto post = ask(*stream, http::verb::post, "/metrics", false);
  EXPECT_EQ(post.result(), http::status::method_not_allowed);
  stream = connect();
  auto root = ask(*stream, http::verb::get, "/", false);
  EXPECT_EQ(root.result(), http::status::ok);
  EXPECT_NE(root.body().find("href=\"/metrics\""), std::string::npos);
}

TEST_F(MetricsEndpointTest, ATakenPortIsNamed) {
  auto second = MetricsEndpoint::start(rt_->executor(), [] { return metrics::Snapshot{}; }, "127.0.0.1", endpoint_->port());
  ASSERT_FALSE(second.ok());
  EXPECT_TRUE(second.error().is(Errc::address_in_use)) << second.error().to_string();
  EXPECT_NE(second.error().detail.find("metricsPromExporterPort"), std::string::npos) << second.error().detail;
}

}  // namespace
}  // namespace ferry::daemon
