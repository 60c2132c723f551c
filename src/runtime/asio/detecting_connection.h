// DetectingConnection: the server side of a connection on a listener in tls.server.mode
// permissive or enforcing (tls_options.h), which becomes plain TCP or TLS by the first byte the
// client sends.
//
// The first read_some or write (whichever comes first; the other waits for it) waits until the
// client has sent a byte, peeks at it without consuming it, and asks admit_connection():
//  * plain: the socket becomes a TcpConnection;
//  * tls: the TLS handshake runs on it and it becomes a TlsConnection;
//  * refused (a plain client while enforcing): the connection is logged and closed, and the
//    operation fails with Errc::reset saying why. A failed handshake is logged and fails the same way.
//    These lines go through the listener's RefusalLog (at most one per cause per 10 s).
// From accept until it is known plain or its handshake is done, the connection is counted by
// the listener's HandshakeGate: it is closed (refused, Errc::timed_out) when that takes longer
// than the gate's timeout, a byte or not, and one accepted while the gate is full is closed
// before anything is read (refused, Errc::busy).
// Afterwards every operation goes to the inner connection (one more coroutine frame per
// operation than a bare TcpConnection: the cost of choosing per connection).
// close() closes whatever exists: the raw socket, the handshake, or the inner connection.
// Loop thread only.
#pragma once

#include <boost/asio/ip/tcp.hpp>

#include <memory>
#include <optional>
#include <vector>

#include "runtime/asio/handshake_gate.h"
#include "runtime/asio/refusal_log.h"
#include "runtime/asio/tls_connection.h"
#include "runtime/asio/tls_contexts.h"
#include "runtime/completion.h"
#include "runtime/executor.h"
#include "runtime/network.h"

namespace ferry::asio_rt {

class DetectingConnection final : public Connection {
 public:
  // `tls` has a server context (mode permissive or enforcing). Errors: those of prepare_socket.
  static Result<std::unique_ptr<Connection>> adopt(boost::asio::ip::tcp::socket socket, Executor& loop, Timers& timers,
                                                   std::shared_ptr<TlsContexts> tls, std::shared_ptr<RefusalLog> log,
                                                   std::shared_ptr<HandshakeGate> gate);
  ~DetectingConnection() override;

  Task<Result<std::size_t>> read_some(MutableBytes buf) override;
  Task<Status> write(std::span<const Bytes> bufs) override;
  using Connection::write;
  void close() override;
  bool is_open() const override;
  const Endpoint& local() const override;
  const Endpoint& peer() const override;

 private:
  DetectingConnection(boost::asio::ip::tcp::socket socket, Executor& loop, Timers& timers, std::shared_ptr<TlsContexts> tls,
                      std::shared_ptr<RefusalLog> log, std::shared_ptr<HandshakeGate> gate, Endpoint local, Endpoint peer);
  // The gate's timeout passed before detection ended: refuse and close.
  void on_deadline();
  // Leaves the gate and cancels the deadline (once).
  void settle();
  // Completes once the inner connection exists (or detection failed, with why).
  Task<Status> ready();
  Task<Status> detect();
  Task<Result<std::uint8_t>> peek_first_byte();
  Error refuse(RefusalLog::Cause cause, const std::string& why);

  Executor& loop_;
  Timers& timers_;
  std::shared_ptr<TlsContexts> tls_;
  std::shared_ptr<RefusalLog> log_;  // the listener's: refusals are limited per listener
  std::shared_ptr<HandshakeGate> gate_;  // the listener's
  bool counted_ = false;                 // inside gate_ (until settle())
  std::optional<TimerId> deadline_;      // the gate's timeout, until settle()
  Endpoint local_;
  Endpoint peer_;
  bool open_ = true;
  std::shared_ptr<boost::asio::ip::tcp::socket> raw_;   // until detection hands it on
  std::shared_ptr<TlsConnection::State> handshaking_;   // during the TLS handshake
  std::unique_ptr<Connection> inner_;                   // after detection
  bool detecting_ = false;
  std::optional<Error> failed_;
  std::optional<Error> timed_out_;  // set by on_deadline()
  std::vector<Completion<Status>> waiters_;  // at most one: the other direction's operation
};

}  // namespace ferry::asio_rt
