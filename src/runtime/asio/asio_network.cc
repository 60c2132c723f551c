#include "runtime/asio/asio_network.h"

#include <boost/asio/ip/tcp.hpp>

#include <utility>

#include "runtime/asio/errors.h"
#include "runtime/asio/tcp_connection.h"
#include "runtime/asio/tcp_listener.h"
#include "runtime/completion.h"

namespace ferry::asio_rt {

namespace net = boost::asio;
using tcp = net::ip::tcp;
using boost::system::error_code;

namespace {

struct Connecting {
  explicit Connecting(net::io_context& io) : socket(io) {}
  tcp::socket socket;
  bool timed_out = false;
};

}  // namespace

AsioNetwork::AsioNetwork(net::io_context& io, Executor& loop, Timers& timers, std::string advertised_host)
    : io_(io), loop_(loop), timers_(timers), host_(std::move(advertised_host)) {}

Result<std::unique_ptr<Listener>> AsioNetwork::listen(const Endpoint& addr) {
  return TcpListener::open(io_, loop_, addr);
}

Task<Result<std::unique_ptr<Connection>>> AsioNetwork::connect(Endpoint addr, Duration timeout) {
  const std::string what = "connect to " + addr.to_string();
  auto ip = parse_ipv4(addr.host, what);
  if (!ip.ok()) co_return std::move(ip).error();

  auto st = std::make_shared<Connecting>(io_);
  Completion<error_code> done(loop_);
  const TimerId deadline = timers_.schedule(timeout, [st] {
    st->timed_out = true;
    error_code ignored;
    st->socket.close(ignored);  // async_connect completes with operation_aborted
  });
  done.on_abandon([st, deadline, timers = &timers_] {
    timers->cancel(deadline);
    error_code ignored;
    st->socket.close(ignored);
  });
  st->socket.async_connect(tcp::endpoint(*ip, addr.port), [done](const error_code& ec) {
    if (!done.abandoned()) done.complete(ec);
  });
  const error_code ec = co_await done.wait();
  timers_.cancel(deadline);
  if (st->timed_out) co_return Error(Errc::timed_out, what + " after " + std::to_string(to_ms(timeout)) + " ms");
  if (ec) co_return net_error(ec, what);
  co_return TcpConnection::adopt(std::move(st->socket), loop_);
}

}  // namespace ferry::asio_rt
