// The HTTP server under the metrics endpoint and mqdashboard (daemon/http_server.h): query
// decoding, and the limits it keeps whatever the handler does, asked over loopback.
#include "daemon/http_server.h"

#include <gtest/gtest.h>

#include <boost/asio.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <thread>

namespace ferry::daemon {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

TEST(HttpQueryTest, DecodesPercentAndPlusAndNamesABadEscape) {
  EXPECT_EQ(*url_decode("a%20b+c%2Fd"), "a b c/d");
  auto bad = url_decode("50%");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().detail.find("percent-encoding"), std::string::npos) << bad.error().detail;
  EXPECT_FALSE(url_decode("%zz").ok());
  EXPECT_EQ(**query_param("topic=T%231&key=k+1", "key"), "k 1");
  EXPECT_EQ(**query_param("topic=T%231&key=k+1", "topic"), "T#1");
  EXPECT_EQ(**query_param("flag&x=", "x"), "");
  EXPECT_FALSE(query_param("topic=T", "key")->has_value());
  EXPECT_FALSE(query_param("key=%G1", "key").ok());
}

class HttpServerTest : public ::testing::Test {
 protected:
  void start(HttpServerOptions options, HttpHandler handler) {
    auto s = HttpServer::start("127.0.0.1", 0, std::move(options), std::move(handler));
    ASSERT_TRUE(s.ok()) << s.error().to_string();
    server_ = std::move(*s);
  }
  http::response<http::string_body> ask(http::verb verb, const std::string& target, std::string body = "") {
    beast::tcp_stream stream(ioc_);
    stream.connect(asio::ip::tcp::endpoint(asio::ip::make_address("127.0.0.1"), server_->port()));
    stream.expires_after(std::chrono::seconds(20));
    http::request<http::string_body> req{verb, target, 11};
    req.set(http::field::host, "127.0.0.1");
    req.set(http::field::content_type, "application/json");
    req.body() = std::move(body);
    req.prepare_payload();
    http::write(stream, req);
    beast::flat_buffer buffer;
    http::response<http::string_body> res;
    http::read(stream, buffer, res);
    return res;
  }

  asio::io_context ioc_;
  std::unique_ptr<HttpServer> server_;
};

TEST_F(HttpServerTest, AHandlerAnswersFromAnotherThreadWithThePostedBody) {
  HttpServerOptions o;
  o.allow_post = true;
  o.body_limit = 64;
  std::vector<std::thread> workers;
  start(o, [&](const HttpRequest& req, HttpRespond respond) {
    workers.emplace_back([req, respond = std::move(respond)] {
      respond(HttpReply{201, "text/plain", req.method + " " + req.path + " ? " + req.query + " : " + req.body, {{"X-Ferry", "1"}}});
    });
  });
  auto res = ask(http::verb::post, "/topic/x.do?a=1", "{\"k\":1}");
  EXPECT_EQ(res.result_int(), 201);
  EXPECT_EQ(res.body(), "POST /topic/x.do ? a=1 : {\"k\":1}");
  EXPECT_EQ(res["X-Ferry"], "1");
  auto big = ask(http::verb::post, "/topic/x.do", std::string(65, 'x'));
  EXPECT_EQ(big.result_int(), 413) << "a body over body_limit is refused before the handler";
  EXPECT_NE(big.body().find("body limit"), std::string::npos) << big.body();
  server_.reset();
  for (auto& w : workers) w.join();
}

TEST_F(HttpServerTest, PostIsRefusedUnlessAllowedAndASilentHandlerGets503) {
  HttpServerOptions o;
  o.reply_timeout = std::chrono::seconds(1);
  o.reply_timeout_text = "too slow\n";
  std::vector<HttpRespond> kept;  // never called
  start(o, [&](const HttpRequest&, HttpRespond respond) { kept.push_back(std::move(respond)); });
  EXPECT_EQ(ask(http::verb::post, "/x").result_int(), 405);
  EXPECT_EQ(ask(http::verb::delete_, "/x").result_int(), 405);
  auto slow = ask(http::verb::get, "/x");
  EXPECT_EQ(slow.result_int(), 503);
  EXPECT_EQ(slow.body(), "too slow\n");
  server_.reset();
  for (auto& r : kept) r(HttpReply{});  // after the server: ignored, no crash
}

}  // namespace
}  // namespace ferry::daemon
