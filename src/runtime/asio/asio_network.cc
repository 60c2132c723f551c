#include "runtime/asio/asio_network.h"

#include <boost/asio/ip/tcp.hpp>

#include <utility>

#include "runtime/asio/errors.h"
#include "runtime/asio/tcp_connection.h"
#include "runtime/asio/tcp_listener.h"
#include "runtime/asio/tls_connection.h"
#include "runtime/completion.h"

namespace ferry::asio_rt {

namespace net = boost::asio;
using tcp = net::ip::tcp;
using boost::system::error_code;

namespace {

struct Connecting {
  explicit Connecting(net::io_context& io) : socket(io) {}
  tcp::socket socket;
  std::shared_ptr<TlsConnection::State> tls;  // once the TLS handshake owns the socket
  bool timed_out = false;

  void abort() {
    error_code ignored;
    socket.close(ignored);  // a pending async_connect completes with operation_aborted
    if (tls) TlsConnection::close_socket(*tls);
  }
};

}  // namespace

AsioNetwork::AsioNetwork(net::io_context& io, Executor& loop, Timers& timers, std::string advertised_host,
                         std::shared_ptr<TlsHolder> tls, spdlog::logger& log)
    : io_(io), loop_(loop), timers_(timers), host_(std::move(advertised_host)), tls_(std::move(tls)), log_(log) {
  FERRY_ASSERT(tls_ != nullptr, "AsioNetwork for {} without TLS settings (even disabled ones)", host_);
}

Result<std::unique_ptr<Listener>> AsioNetwork::listen(const Endpoint& addr) {
  return TcpListener::open(io_, loop_, timers_, addr, tls_, log_);
}

Task<Result<std::unique_ptr<Connection>>> AsioNetwork::connect(Endpoint addr, Duration timeout) {
  const std::string what = "connect to " + addr.to_string();
  auto ip = parse_ipv4(addr.host, what);
  if (!ip.ok()) co_return std::move(ip).error();

  auto st = std::make_shared<Connecting>(io_);
  Completion<error_code> done(loop_);
  const TimerId deadline = timers_.schedule(timeout, [st] {
    st->timed_out = true;
    st->abort();
  });
  done.on_abandon([st, deadline, timers = &timers_] {
    timers->cancel(deadline);
    st->abort();
  });
  st->socket.async_connect(tcp::endpoint(*ip, addr.port), [done](const error_code& ec) {
    if (!done.abandoned()) done.complete(ec);
  });
  const error_code ec = co_await done.wait();
  if (st->timed_out) co_return Error(Errc::timed_out, what + " after " + std::to_string(to_ms(timeout)) + " ms");
  if (ec) {
    timers_.cancel(deadline);
    co_return net_error(ec, what);
  }
  const std::shared_ptr<TlsContexts> tls = tls_->current;  // kept by the connection if TLS
  if (!tls->client) {
    timers_.cancel(deadline);
    co_return TcpConnection::adopt(std::move(st->socket), loop_);
  }
  // TLS: the handshake runs under the same deadline (the timer closes its socket).
  auto ends = prepare_socket(st->socket);
  if (!ends) {
    timers_.cancel(deadline);
    co_return std::move(ends).error();
  }
  st->tls = TlsConnection::prepare(std::move(st->socket), *tls->client, ends->first, ends->second, tls);
  if (tls->client_verify_hostname) {
    if (Status named = TlsConnection::verify_peer_host(*st->tls, addr.host); !named) {
      timers_.cancel(deadline);
      co_return std::move(named).error();
    }
  }
  Task<Result<std::unique_ptr<Connection>>> hs = TlsConnection::handshake(st->tls, TlsConnection::Role::client, loop_);
  Result<std::unique_ptr<Connection>> secured = co_await std::move(hs);
  timers_.cancel(deadline);
  if (st->timed_out) {
    co_return Error(Errc::timed_out, what + ": TLS handshake not done after " + std::to_string(to_ms(timeout)) + " ms");
  }
  co_return secured;
}

}  // namespace ferry::asio_rt
