#include "runtime/asio/tcp_listener.h"

#include <boost/asio/error.hpp>

#include <optional>
#include <utility>

#include "runtime/asio/detecting_connection.h"
#include "runtime/asio/errors.h"
#include "runtime/asio/tcp_connection.h"
#include "runtime/completion.h"

namespace ferry::asio_rt {

namespace net = boost::asio;
using tcp = net::ip::tcp;
using boost::system::error_code;

struct TcpListener::State {
  explicit State(net::io_context& io) : acceptor(io) {}
  tcp::acceptor acceptor;
  Endpoint local;
  bool open = true;
};

namespace {

struct Accepted {
  error_code ec;
  std::optional<tcp::socket> socket;
};

void start_accept(const std::shared_ptr<TcpListener::State>& st, const Completion<Accepted>& done) {
  st->acceptor.async_accept([st, done](const error_code& ec, tcp::socket socket) {
    if (done.abandoned()) return;  // nobody wants it: `socket` closes here
    // A client that gave up between the handshake and accept() is not an error of the listener.
    if (ec == net::error::connection_aborted && st->open) return start_accept(st, done);
    Accepted a;
    a.ec = ec;
    if (!ec) a.socket.emplace(std::move(socket));
    done.complete(std::move(a));
  });
}

}  // namespace

Result<net::ip::address_v4> parse_ipv4(const std::string& host, const std::string& what) {
  error_code ec;
  const auto ip = net::ip::make_address_v4(host, ec);
  if (ec) return Error(Errc::invalid_argument, what + ": '" + host + "' is not a dotted IPv4 address");
  return ip;
}

Result<std::unique_ptr<Listener>> TcpListener::open(net::io_context& io, Executor& loop, Timers& timers,
                                                   const Endpoint& addr, std::shared_ptr<TlsHolder> tls,
                                                   spdlog::logger& log) {
  FERRY_ASSERT(tls != nullptr && tls->current != nullptr, "listen on {} without TLS settings (even disabled ones)",
               addr.to_string());
  const std::string what = "listen on " + addr.to_string();
  auto ip = parse_ipv4(addr.host, what);
  if (!ip.ok()) return std::move(ip).error();
  auto st = std::make_shared<State>(io);
  const tcp::endpoint ep(*ip, addr.port);
  error_code ec;
  st->acceptor.open(ep.protocol(), ec);
  if (!ec) st->acceptor.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) st->acceptor.bind(ep, ec);
  if (!ec) st->acceptor.listen(net::socket_base::max_listen_connections, ec);
  tcp::endpoint bound;
  if (!ec) bound = st->acceptor.local_endpoint(ec);
  if (ec) return net_error(ec, what);
  st->local = to_endpoint(bound);
  return std::unique_ptr<Listener>(new TcpListener(std::move(st), loop, timers, std::move(tls), log));
}

TcpListener::TcpListener(std::shared_ptr<State> state, Executor& loop, Timers& timers, std::shared_ptr<TlsHolder> tls,
                         spdlog::logger& log)
    : st_(std::move(state)),
      loop_(loop),
      timers_(timers),
      tls_(std::move(tls)),
      refusals_(std::make_shared<RefusalLog>(log)),
      gate_(std::make_shared<HandshakeGate>(tls_->current->handshake_timeout, tls_->current->handshakes_max)) {}

TcpListener::~TcpListener() { close(); }

Task<Result<std::unique_ptr<Connection>>> TcpListener::accept() {
  // Only locals after the suspension: a listener destroyed while this waits closes itself, and
  // the resumed frame must not touch it.
  const std::shared_ptr<State> st = st_;
  Executor& loop = loop_;
  const std::shared_ptr<TlsHolder> holder = tls_;
  const std::shared_ptr<RefusalLog> refusals = refusals_;
  const std::shared_ptr<HandshakeGate> gate = gate_;
  Timers& timers = timers_;
  if (!st->open) co_return Error(Errc::closed, "listener on " + st->local.to_string() + " was closed");
  Completion<Accepted> done(loop);
  start_accept(st, done);
  Accepted a = co_await done.wait();
  if (a.ec) {
    if (!st->open) co_return Error(Errc::closed, "listener on " + st->local.to_string() + " was closed");
    co_return net_error(a.ec, "accept on " + st->local.to_string());
  }
  const std::shared_ptr<TlsContexts> tls = holder->current;  // after the wait: a reload may have come
  if (tls->server_mode == TlsServerMode::disabled) co_return TcpConnection::adopt(std::move(*a.socket), loop, refusals);
  co_return DetectingConnection::adopt(std::move(*a.socket), loop, timers, tls, refusals, gate);
}

void TcpListener::close() {
  if (!st_->open) return;
  st_->open = false;
  error_code ignored;
  st_->acceptor.close(ignored);  // a pending accept completes with operation_aborted
}

const Endpoint& TcpListener::local() const { return st_->local; }

}  // namespace ferry::asio_rt
