#include "runtime/asio/tls_connection.h"

#include <boost/asio/error.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/write.hpp>

#include <algorithm>
#include <cstring>
#include <utility>
#include <vector>

#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "runtime/asio/errors.h"
#include "runtime/completion.h"

namespace ferry::asio_rt {

namespace net = boost::asio;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;
using boost::system::error_code;

struct TlsConnection::State {
  State(tcp::socket socket, ssl::context& ctx) : stream(std::move(socket), ctx), in(kReadBufferBytes) {}
  std::shared_ptr<const void> owner;  // keeps the context alive (declared before the stream: freed after it)
  ssl::stream<tcp::socket> stream;
  Endpoint local;
  Endpoint peer;
  bool open = true;
  std::vector<std::uint8_t> in;  // decrypted bytes not yet handed out: in[in_begin, in_end)
  std::size_t in_begin = 0;
  std::size_t in_end = 0;
  std::vector<std::uint8_t> out;  // the write in progress, copied from the caller
};

namespace {

using StatePtr = std::shared_ptr<TlsConnection::State>;

Error closed_error(const TlsConnection::State& st) {
  return Error(Errc::closed, "TLS connection to " + st.peer.to_string() + " was closed locally");
}

Error op_error(const TlsConnection::State& st, const error_code& ec, const char* op) {
  if (!st.open) return closed_error(st);
  // A peer that closes the socket without a close_notify alert (Java's and Ferry's close both do):
  // the stream is over, like a TCP FIN.
  if (ec == ssl::error::stream_truncated) return Error(Errc::eof, std::string(op) + " " + st.peer.to_string() + ": end of stream");
  return net_error(ec, std::string(op) + " " + st.peer.to_string() + " (TLS)");
}

}  // namespace

std::shared_ptr<TlsConnection::State> TlsConnection::prepare(tcp::socket socket, ssl::context& ctx, Endpoint local, Endpoint peer,
                                                            std::shared_ptr<const void> owner) {
  auto st = std::make_shared<State>(std::move(socket), ctx);
  st->owner = std::move(owner);
  st->local = std::move(local);
  st->peer = std::move(peer);
  return st;
}

Status TlsConnection::verify_peer_host(State& st, const std::string& host) {
  SSL* ssl = st.stream.native_handle();
  error_code ec;
  boost::asio::ip::make_address(host, ec);
  if (!ec) {
    if (X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), host.c_str()) != 1) {
      return Error(Errc::invalid_argument, "TLS: cannot check the server's certificate for address " + host);
    }
    return Status();
  }
  if (SSL_set1_host(ssl, host.c_str()) != 1 || SSL_set_tlsext_host_name(ssl, host.c_str()) != 1) {
    return Error(Errc::invalid_argument, "TLS: cannot check the server's certificate for host " + host);
  }
  return Status();
}

void TlsConnection::close_socket(State& st) {
  st.open = false;
  error_code ignored;
  st.stream.lowest_layer().close(ignored);
}

Task<Result<std::unique_ptr<Connection>>> TlsConnection::handshake(std::shared_ptr<State> st, Role role, Executor& loop) {
  Completion<error_code> done(loop);
  done.on_abandon([st] { close_socket(*st); });
  st->stream.async_handshake(role == Role::client ? ssl::stream_base::client : ssl::stream_base::server,
                             [done](const error_code& ec) {
                               if (!done.abandoned()) done.complete(ec);
                             });
  const error_code ec = co_await done.wait();
  if (!st->open) co_return closed_error(*st);
  if (ec) {
    close_socket(*st);
    const char* with = role == Role::client ? "TLS handshake with " : "TLS handshake from ";
    co_return Error(Errc::reset, with + st->peer.to_string() + " failed: " + ec.message());
  }
  co_return std::unique_ptr<Connection>(new TlsConnection(std::move(st), loop));
}

TlsConnection::TlsConnection(std::shared_ptr<State> state, Executor& loop) : st_(std::move(state)), loop_(loop) {}

TlsConnection::~TlsConnection() { close(); }

Task<Result<std::size_t>> TlsConnection::read_some(MutableBytes buf) {
  FERRY_ASSERT(!buf.empty(), "read_some into an empty buffer from {}", st_->peer.to_string());
  const StatePtr st = st_;
  if (!st->open) co_return closed_error(*st);
  if (st->in_begin == st->in_end) {
    Completion<Result<std::size_t>> done(loop_);
    done.on_abandon([st] { close_socket(*st); });  // a read cannot be taken back: the stream ends
    st->stream.async_read_some(net::buffer(st->in), [st, done](const error_code& ec, std::size_t n) {
      // The bytes belong to the connection whether or not anybody still waits for them.
      st->in_begin = 0;
      st->in_end = ec ? 0 : n;
      if (done.abandoned()) return;
      if (ec) return done.complete(op_error(*st, ec, "read from"));
      done.complete(n);
    });
    Result<std::size_t> got = co_await done.wait();
    if (!got) co_return std::move(got).error();
  }
  FERRY_ASSERT(st->in_begin < st->in_end, "TLS read buffer empty after a read: [{}, {})", st->in_begin, st->in_end);
  const std::size_t n = std::min(buf.size(), st->in_end - st->in_begin);
  std::memcpy(buf.data(), st->in.data() + st->in_begin, n);
  st->in_begin += n;
  co_return n;
}

Task<Status> TlsConnection::write(std::span<const Bytes> bufs) {
  const StatePtr st = st_;
  if (!st->open) co_return closed_error(*st);
  std::size_t total = 0;
  for (const Bytes b : bufs) total += b.size();
  if (total == 0) co_return Status{};
  st->out.clear();
  st->out.reserve(total);
  for (const Bytes b : bufs) st->out.insert(st->out.end(), b.begin(), b.end());
  Completion<Status> done(loop_);
  done.on_abandon([st] { close_socket(*st); });  // half a record may be out: the stream ends
  net::async_write(st->stream, net::buffer(st->out), [st, done](const error_code& ec, std::size_t) {
    if (done.abandoned()) return;
    if (ec) return done.complete(op_error(*st, ec, "write to"));
    done.complete(Status{});
  });
  co_return co_await done.wait();
}

void TlsConnection::close() {
  if (!st_->open) return;
  close_socket(*st_);
}

bool TlsConnection::is_open() const { return st_->open; }
const Endpoint& TlsConnection::local() const { return st_->local; }
const Endpoint& TlsConnection::peer() const { return st_->peer; }

}  // namespace ferry::asio_rt
