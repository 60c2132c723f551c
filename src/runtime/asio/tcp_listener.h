// TcpListener: the production Listener, a listening TCP socket (SO_REUSEADDR, so a restarted
// daemon can bind while old connections linger in TIME_WAIT; Linux still refuses a second
// listener on the same address with address_in_use).
//
// accept() waits on the loop with async_accept and returns a connection chosen by the node's
// tls.server.mode (tls_options.h): disabled, a TcpConnection that closes a TLS handshake
// attempt on its first read; permissive or enforcing, a DetectingConnection. A connection reset
// before it was accepted is skipped; running out of descriptors is Errc::busy. close() stops
// listening at once: a pending accept completes with Errc::closed. If the awaiting frame is
// destroyed, a connection accepted for it is closed. The connections' refusal lines (TLS turned
// away) go through one RefusalLog per listener, and a TLS listener's connections are counted and
// timed by one HandshakeGate until their handshake is done. Loop thread only.
#pragma once

#include <boost/asio/ip/tcp.hpp>

#include <memory>

#include <spdlog/logger.h>

#include "runtime/asio/handshake_gate.h"
#include "runtime/asio/refusal_log.h"
#include "runtime/asio/tls_contexts.h"
#include "runtime/executor.h"
#include "runtime/network.h"

namespace ferry::asio_rt {

class TcpListener final : public Listener {
 public:
  // Binds and listens on `addr` (port 0 picks a free port).
  // Errors: address_in_use, invalid_argument (bad host, or not a local address).
  // `tls` and `log` must outlive the listener and its connections.
  static Result<std::unique_ptr<Listener>> open(boost::asio::io_context& io, Executor& loop, Timers& timers,
                                                const Endpoint& addr, std::shared_ptr<TlsHolder> tls, spdlog::logger& log);
  ~TcpListener() override;

  Task<Result<std::unique_ptr<Connection>>> accept() override;
  void close() override;
  const Endpoint& local() const override;

  struct State;

 private:
  TcpListener(std::shared_ptr<State> state, Executor& loop, Timers& timers, std::shared_ptr<TlsHolder> tls,
              spdlog::logger& log);
  std::shared_ptr<State> st_;
  Executor& loop_;
  Timers& timers_;
  std::shared_ptr<TlsHolder> tls_;  // the node's: each accept uses the contexts current then
  std::shared_ptr<RefusalLog> refusals_;  // shared with the connections it makes
  std::shared_ptr<HandshakeGate> gate_;   // likewise (permissive and enforcing listeners)
};

// Parses a dotted IPv4 address. Errors: invalid_argument naming `what`.
Result<boost::asio::ip::address_v4> parse_ipv4(const std::string& host, const std::string& what);

}  // namespace ferry::asio_rt
