#include "daemon/http_server.h"

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <optional>
#include <thread>
#include <type_traits>

#include <fmt/format.h>

#include "common/hex.h"

namespace ferry::daemon {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

Result<std::string> url_decode(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '+') {
      out.push_back(' ');
    } else if (c != '%') {
      out.push_back(c);
    } else {
      std::uint8_t byte = 0;
      if (i + 2 >= text.size() || !parse_hex(text.substr(i + 1, 2), MutableBytes(&byte, 1)).ok()) {
        return Error(Errc::invalid_argument, fmt::format("bad percent-encoding at byte {} of \"{}\"", i, text));
      }
      out.push_back(static_cast<char>(byte));
      i += 2;
    }
  }
  return out;
}

Result<std::optional<std::string>> query_param(std::string_view query, std::string_view name) {
  while (!query.empty()) {
    const std::size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    const std::size_t eq = pair.find('=');
    Result<std::string> key = url_decode(pair.substr(0, eq));
    if (!key.ok()) return std::move(key).error();
    if (*key != name) continue;
    Result<std::string> value = url_decode(eq == std::string_view::npos ? std::string_view() : pair.substr(eq + 1));
    if (!value.ok()) return std::move(value).error();
    return std::optional<std::string>(std::move(*value));
  }
  return std::optional<std::string>();
}

// Members in this order: the io_context outlives the acceptor and the thread, and what its
// pending handlers' sessions touch when it destroys them (sessions) outlives it.
struct HttpServer::Impl {
  HttpServerOptions options;
  HttpHandler handler;
  std::size_t sessions = 0;  // the I/O thread's (and the destructor's once it joined)
  std::string host;
  std::optional<asio::ssl::context> ssl;  // HTTPS when set
  asio::io_context ioc{1};
  tcp::acceptor acceptor{ioc};
  std::thread thread;

  Impl(HttpServerOptions o, HttpHandler h) : options(std::move(o)), handler(std::move(h)) {}
  void accept();
};

namespace {

// One connection: plain (Stream = tcp_stream) or HTTPS (ssl_stream over it, handshake first).
template <typename Stream>
class Session : public std::enable_shared_from_this<Session<Stream>> {
  static constexpr bool kTls = !std::is_same_v<Stream, beast::tcp_stream>;

 public:
  Session(HttpServer::Impl& impl, tcp::socket socket)
      : impl_(impl), stream_(make_stream(impl, std::move(socket))), reply_timer_(impl.ioc) {
    ++impl_.sessions;
  }
  ~Session() { --impl_.sessions; }

  void start() {
    if constexpr (kTls) {
      beast::get_lowest_layer(stream_).expires_after(impl_.options.io_timeout);
      stream_.async_handshake(asio::ssl::stream_base::server, [self = this->shared_from_this()](beast::error_code ec) {
        if (ec) {
          self->close();  // not TLS, or a certificate the client refused: nothing to answer
          return;
        }
        self->read();
      });
    } else {
      read();
    }
  }

 private:
  static Stream make_stream(HttpServer::Impl& impl, tcp::socket socket) {
    if constexpr (kTls) {
      return Stream(beast::tcp_stream(std::move(socket)), *impl.ssl);
    } else {
      return Stream(std::move(socket));
    }
  }

  void read() {
    parser_.emplace();
    parser_->header_limit(impl_.options.header_limit);
    parser_->body_limit(impl_.options.body_limit);
    beast::get_lowest_layer(stream_).expires_after(impl_.options.io_timeout);
    http::async_read(stream_, buffer_, *parser_, [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
      self->on_read(ec);
    });
  }

  void on_read(beast::error_code ec) {
    if (ec == http::error::end_of_stream) {
      close();
      return;
    }
    if (ec) {
      // A request over the limits gets its reason; a timeout or a reset just ends the connection.
      if (ec == http::error::header_limit || ec == http::error::body_limit) {
        keep_alive_ = false;
        const int status = ec == http::error::body_limit ? 413 : 400;
        send(HttpReply{status, "text/plain; charset=utf-8", fmt::format("bad request: {}\n", ec.message()), {}}, false);
      } else {
        close();
      }
      return;
    }
    auto& req = parser_->get();
    version_ = req.version();
    keep_alive_ = req.keep_alive();
    head_ = req.method() == http::verb::head;
    const bool post = req.method() == http::verb::post;
    if (req.method() != http::verb::get && !head_ && !(post && impl_.options.allow_post)) {
      send(HttpReply{405, "text/plain; charset=utf-8",
                     impl_.options.allow_post ? "only GET, HEAD and POST are served here\n" : "only GET and HEAD are served here\n",
                     {}},
           false);
      return;
    }
    HttpRequest request;
    request.method = head_ ? "HEAD" : post ? "POST" : "GET";
    const std::string_view target(req.target().data(), req.target().size());
    const std::size_t q = target.find('?');
    request.path = std::string(target.substr(0, q));
    if (q != std::string_view::npos) request.query = std::string(target.substr(q + 1));
    if (auto it = req.find(http::field::content_type); it != req.end()) request.content_type = std::string(it->value());
    if (auto it = req.find(http::field::authorization); it != req.end()) request.authorization = std::string(it->value());
    request.body = std::move(req.body());

    waiting_ = true;
    reply_timer_.expires_after(impl_.options.reply_timeout);
    reply_timer_.async_wait([self = this->shared_from_this()](beast::error_code e) {
      if (e || !self->waiting_) return;
      self->waiting_ = false;
      self->send(HttpReply{503, "text/plain; charset=utf-8", self->impl_.options.reply_timeout_text, {}}, false);
    });
    std::weak_ptr<Session> weak = this->shared_from_this();
    asio::io_context* ioc = &impl_.ioc;
    // A respond after the server is gone finds the session expired (the header says which thread
    // may call it); posted to the stopped io_context before that, it runs nothing.
    impl_.handler(request, [weak, ioc](HttpReply reply) {
      if (weak.expired()) return;
      asio::post(*ioc, [weak, reply = std::move(reply)]() mutable {
        auto self = weak.lock();
        if (!self || !self->waiting_) return;
        self->waiting_ = false;
        self->reply_timer_.cancel();
        self->send(std::move(reply), true);
      });
    });
  }

  void send(HttpReply reply, bool keep) {
    res_ = {};
    res_.version(version_);
    res_.result(static_cast<http::status>(reply.status));
    res_.set(http::field::server, "ferry");
    res_.set(http::field::content_type, reply.content_type);
    for (const auto& [name, value] : reply.headers) res_.set(name, value);
    res_.keep_alive(keep && keep_alive_);
    if (head_) {
      res_.content_length(reply.body.size());
    } else {
      res_.body() = std::move(reply.body);
      res_.prepare_payload();
    }
    beast::get_lowest_layer(stream_).expires_after(impl_.options.io_timeout);
    http::async_write(stream_, res_, [self = this->shared_from_this()](beast::error_code ec, std::size_t) {
      if (ec || !self->res_.keep_alive()) {
        self->close();
        return;
      }
      self->read();
    });
  }

  void close() {
    beast::error_code ignored;
    auto& socket = beast::get_lowest_layer(stream_).socket();
    socket.shutdown(tcp::socket::shutdown_send, ignored);
    socket.close(ignored);
  }

  HttpServer::Impl& impl_;
  Stream stream_;
  beast::flat_buffer buffer_;
  std::optional<http::request_parser<http::string_body>> parser_;
  http::response<http::string_body> res_;
  asio::steady_timer reply_timer_;
  unsigned version_ = 11;
  bool keep_alive_ = true;
  bool head_ = false;
  bool waiting_ = false;
};

}  // namespace

void HttpServer::Impl::accept() {
  acceptor.async_accept([this](beast::error_code ec, tcp::socket socket) {
    if (ec == asio::error::operation_aborted) return;
    if (!ec) {
      if (sessions >= options.connections_max) {
        beast::error_code ignored;
        socket.close(ignored);  // over the cap: closed at once
      } else {
        if (ssl) {
          std::make_shared<Session<beast::ssl_stream<beast::tcp_stream>>>(*this, std::move(socket))->start();
        } else {
          std::make_shared<Session<beast::tcp_stream>>(*this, std::move(socket))->start();
        }
      }
    }
    accept();
  });
}

Result<std::unique_ptr<HttpServer>> HttpServer::start(const std::string& host, std::uint16_t port,
                                                      HttpServerOptions options, HttpHandler handler) {
  auto impl = std::make_unique<Impl>(std::move(options), std::move(handler));
  const std::string& name = impl->options.name;
  beast::error_code ec;
  const auto address = asio::ip::make_address(host, ec);
  if (ec) return Error(Errc::invalid_argument, fmt::format("{}: \"{}\" is not an IP address", name, host));
  if (impl->options.tls) {
    const HttpTlsFiles& files = *impl->options.tls;
    impl->ssl.emplace(asio::ssl::context::tls_server);
    impl->ssl->set_options(asio::ssl::context::default_workarounds | asio::ssl::context::no_sslv2 |
                           asio::ssl::context::no_sslv3 | asio::ssl::context::no_tlsv1 | asio::ssl::context::no_tlsv1_1);
    impl->ssl->use_certificate_chain_file(files.cert_path, ec);
    if (ec) return Error(Errc::invalid_argument, fmt::format("{}: certificate {}: {}", name, files.cert_path, ec.message()));
    impl->ssl->use_private_key_file(files.key_path, asio::ssl::context::pem, ec);
    if (ec) return Error(Errc::invalid_argument, fmt::format("{}: private key {}: {}", name, files.key_path, ec.message()));
  }
  const tcp::endpoint at(address, port);
  impl->acceptor.open(at.protocol(), ec);
  if (!ec) impl->acceptor.set_option(asio::socket_base::reuse_address(true), ec);
  if (!ec) impl->acceptor.bind(at, ec);
  if (!ec) impl->acceptor.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    const std::string where = fmt::format("{}:{}", host, port);
    if (ec == asio::error::address_in_use) {
      const std::string& key = impl->options.port_key;
      return Error(Errc::address_in_use,
                   key.empty() ? fmt::format("{}: address in use: {}", name, where)
                               : fmt::format("{}: address in use: {} ({})", name, where, key));
    }
    return Error(Errc::io_error, fmt::format("{}: cannot listen on {}: {}", name, where, ec.message()));
  }
  impl->host = host;
  impl->accept();
  Impl* raw = impl.get();
  impl->thread = std::thread([raw] { raw->ioc.run(); });
  return std::unique_ptr<HttpServer>(new HttpServer(std::move(impl)));
}

HttpServer::HttpServer(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

HttpServer::~HttpServer() {
  impl_->ioc.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

std::uint16_t HttpServer::port() const { return impl_->acceptor.local_endpoint().port(); }

std::string HttpServer::address() const { return fmt::format("{}:{}", impl_->host, port()); }

}  // namespace ferry::daemon
