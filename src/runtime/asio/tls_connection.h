// TlsConnection: a Connection over TLS (an OpenSSL stream on one TCP socket), after a completed
// handshake.
//
// How it differs from TcpConnection:
//  * Reads go into a buffer the connection owns (kReadBufferBytes), and are copied to the
//    caller's buffer after the awaiting frame is resumed; writes copy the caller's buffers into
//    a buffer the connection owns before encrypting. So a frame destroyed mid-operation leaves
//    OpenSSL writing only into memory the connection's shared state keeps alive. The copy is
//    the price of TLS here (one memcpy a read and a write, on top of the encryption).
//  * Destroying a frame whose read or write is in progress closes the connection (OpenSSL
//    cannot take back half a record, and a second read must not start while the first runs).
//  * One read and one write may be in progress at a time, as the Connection contract says
//    (OpenSSL's stream allows exactly that).
//  * The peer closing without TLS's close_notify (which is how both Ferry and Java close) reads
//    as eof, like a TCP FIN.
//  * close() closes the socket at once (no close_notify): waiting operations complete with
//    Errc::closed.
// Loop thread only.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>

#include <memory>

#include "runtime/executor.h"
#include "runtime/network.h"

namespace ferry::asio_rt {

class TlsConnection final : public Connection {
 public:
  static constexpr std::size_t kReadBufferBytes = 16 * 1024;  // one TLS record's plaintext at most

  enum class Role { client, server };
  // Runs the TLS handshake on a connected, prepared socket (prepare_socket in tcp_connection.h)
  // and returns the connection. Errors: reset with OpenSSL's reason ("TLS handshake with
  // 127.0.0.1:9876 failed: certificate verify failed", "from" on the server side), closed when `cancel` closed the
  // socket first (the caller's deadline). `ctx` must outlive the connection, or be
  // kept alive by `owner`, which the connection holds (the node's contexts before a reload).
  struct State;
  static Task<Result<std::unique_ptr<Connection>>> handshake(std::shared_ptr<State> st, Role role, Executor& loop);
  // Creates the stream the handshake will run on; close_socket() on it aborts the handshake.
  static std::shared_ptr<State> prepare(boost::asio::ip::tcp::socket socket, boost::asio::ssl::context& ctx,
                                        Endpoint local, Endpoint peer, std::shared_ptr<const void> owner = nullptr);
  static void close_socket(State& st);
  // Client role, before the handshake: the server's certificate must name `host` (an IP address
  // literal is matched against iPAddress subjectAltNames, anything else as a DNS name, which is
  // also sent as SNI). A mismatch fails the handshake ("certificate verify failed"). Errors:
  // invalid_argument when OpenSSL refuses the name.
  static Status verify_peer_host(State& st, const std::string& host);

  ~TlsConnection() override;

  Task<Result<std::size_t>> read_some(MutableBytes buf) override;
  Task<Status> write(std::span<const Bytes> bufs) override;
  using Connection::write;
  void close() override;
  bool is_open() const override;
  const Endpoint& local() const override;
  const Endpoint& peer() const override;

 private:
  TlsConnection(std::shared_ptr<State> state, Executor& loop);
  std::shared_ptr<State> st_;
  Executor& loop_;
};

}  // namespace ferry::asio_rt
