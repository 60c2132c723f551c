// HttpServer: a small HTTP/1.1 server on its own thread (Boost.Beast), for the daemons' metrics
// endpoint and mqdashboard. The handler runs on the server's thread and answers through `respond`,
// which any thread may call later (at most once; later calls are ignored), so a handler can hand
// the work to a node's loop and answer from there. A respond must not race with the server's
// destructor: call the two from one thread (the node's loop, say).
//
// The server, not the handler, owns the limits: `connections_max` connections at once (one more is
// closed at once), requests of at most `header_limit` bytes of headers and `body_limit` of body
// (beyond them: 400 or 413 with the reason, then the connection closes), `io_timeout` to send a
// request and to take a reply, and `reply_timeout` for the handler to answer (503 with
// `reply_timeout_text` after it). GET and HEAD are served (HEAD: the handler's GET reply without
// its body), POST when `allow_post`; other methods get 405. Keep-alive as the client asks.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "runtime/result.h"

namespace ferry::daemon {

struct HttpRequest {
  std::string method;        // "GET", "HEAD" or "POST"
  std::string path;          // the target before '?', still percent-encoded
  std::string query;         // after '?', still percent-encoded ("" when none)
  std::string content_type;  // the request's Content-Type ("" when none)
  std::string authorization;  // the Authorization header ("" when none)
  std::string body;
};

struct HttpReply {
  int status = 200;
  std::string content_type = "text/plain; charset=utf-8";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;  // extra header fields
};

using HttpRespond = std::function<void(HttpReply)>;
using HttpHandler = std::function<void(const HttpRequest&, HttpRespond)>;

// HTTPS: the server's certificate chain and private key, PEM files (TLS 1.2 and later).
struct HttpTlsFiles {
  std::string cert_path;
  std::string key_path;
};

struct HttpServerOptions {
  std::string name = "http server";  // names the server in errors ("metrics endpoint: address in use ...")
  std::string port_key;              // the configuration key of the port, named in "address in use"
  std::size_t connections_max = 64;
  std::uint32_t header_limit = 8 * 1024;
  std::uint64_t body_limit = 0;
  bool allow_post = false;
  std::optional<HttpTlsFiles> tls;  // HTTPS when set: each connection's handshake comes first
  std::chrono::seconds io_timeout{30};
  std::chrono::seconds reply_timeout{10};
  std::string reply_timeout_text = "the server did not answer in time\n";
};

// Decodes %XX and '+' (a space) of a query component. Errors: invalid_argument for a '%' not
// followed by two hex digits.
Result<std::string> url_decode(std::string_view text);
// The decoded value of `name` in a query string "a=1&b=x%20y" (the first one); nullopt when
// absent. Errors: url_decode's.
Result<std::optional<std::string>> query_param(std::string_view query, std::string_view name);

class HttpServer {
 public:
  // Listens on host:port (port 0: any free port) and starts the thread. Errors: address_in_use,
  // invalid_argument (a host that is not an IP address; a certificate or key that does not load,
  // naming the file), io_error; each names options.name.
  static Result<std::unique_ptr<HttpServer>> start(const std::string& host, std::uint16_t port, HttpServerOptions options,
                                                   HttpHandler handler);
  // Stops accepting, closes the connections and joins the thread; a `respond` called after that
  // does nothing.
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  std::uint16_t port() const;
  std::string address() const;  // "host:port"

  struct Impl;

 private:
  explicit HttpServer(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace ferry::daemon
