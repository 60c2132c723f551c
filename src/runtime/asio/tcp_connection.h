// TcpConnection: the production Connection, one connected TCP socket (TCP_NODELAY, non-blocking).
//
// How operations run (all on the loop thread):
//  * read_some / write post an attempt to the executor (so neither ever completes inline, and a
//    busy connection cannot starve the rest of the loop). The attempt makes the non-blocking
//    system call itself; when the socket is not ready it waits for readiness with async_wait and
//    tries again. The caller's buffers are touched only inside an attempt, after checking that
//    the awaiting frame still exists, so destroying a frame mid-operation never lets the kernel
//    write into freed memory.
//  * write sends the buffers with gathering send calls until all bytes are in the kernel.
//  * close() closes the socket at once: waiting operations complete with Errc::closed through
//    the executor; the peer reads eof after the bytes already sent.
// The socket lives in a shared state that pending handlers keep alive, so even a Connection
// destroyed with an operation in progress (a contract violation) touches no freed memory.
#pragma once

#include <boost/asio/ip/tcp.hpp>

#include <memory>
#include <utility>

#include "runtime/asio/refusal_log.h"
#include "runtime/executor.h"
#include "runtime/network.h"

namespace ferry::asio_rt {

class TcpConnection final : public Connection {
 public:
  // Takes a connected socket. Errors: reset when the peer is already gone (no addresses).
  // With `refuse_tls_log` (a listener in tls.server.mode=disabled), a connection whose first
  // byte is a TLS handshake record is closed: the read fails with Errc::reset and the refusal is
  // logged there (tls_options.h), limited with the listener's other refusals.
  static Result<std::unique_ptr<Connection>> adopt(boost::asio::ip::tcp::socket socket, Executor& loop,
                                                   std::shared_ptr<RefusalLog> refuse_tls_log = nullptr);
  ~TcpConnection() override;

  Task<Result<std::size_t>> read_some(MutableBytes buf) override;
  Task<Status> write(std::span<const Bytes> bufs) override;
  using Connection::write;
  void close() override;
  bool is_open() const override;
  const Endpoint& local() const override;
  const Endpoint& peer() const override;

  struct State;

 private:
  TcpConnection(std::shared_ptr<State> state, Executor& loop);
  // Whether this operation may try the socket inline (no executor hop) and count it. After
  // kInlineStreakMax inline operations in a row one goes through the executor, so a connection
  // whose socket always has data cannot starve the node's other work.
  bool take_inline_turn();
  static constexpr int kInlineStreakMax = 16;

  std::shared_ptr<State> st_;
  Executor& loop_;
  int inline_streak_ = 0;
};

Endpoint to_endpoint(const boost::asio::ip::tcp::endpoint& ep);

// What adopt() does to every socket: TCP_NODELAY, keepalive with the dead-peer timeout
// (network.h), non-blocking; then reads both addresses. Errors: reset when the peer is gone.
Result<std::pair<Endpoint, Endpoint>> prepare_socket(boost::asio::ip::tcp::socket& socket);

}  // namespace ferry::asio_rt
