#include "runtime/asio/tcp_connection.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <boost/asio/error.hpp>

#include <utility>
#include <vector>

#include "runtime/asio/errors.h"
#include "runtime/asio/tls_options.h"
#include "runtime/completion.h"

namespace ferry::asio_rt {

namespace net = boost::asio;
using tcp = net::ip::tcp;
using boost::system::error_code;

struct TcpConnection::State {
  explicit State(tcp::socket s) : socket(std::move(s)) {}
  tcp::socket socket;
  Endpoint local;
  Endpoint peer;
  bool open = true;
  std::shared_ptr<RefusalLog> refuse_tls_log;  // set until the first read was checked
};

namespace {

using ReadDone = Completion<Result<std::size_t>>;
using WriteDone = Completion<Status>;
using StatePtr = std::shared_ptr<TcpConnection::State>;

bool would_block(const error_code& ec) {
  return ec == net::error::would_block || ec == net::error::try_again;
}

Error closed_error(const TcpConnection::State& st) {
  return Error(Errc::closed, "connection to " + st.peer.to_string() + " was closed locally");
}

Error op_error(const TcpConnection::State& st, const error_code& ec, const char* op) {
  if (!st.open) return closed_error(st);
  return net_error(ec, std::string(op) + " " + st.peer.to_string());
}

void attempt_read(const StatePtr& st, MutableBytes buf, const ReadDone& done) {
  if (done.abandoned()) return;  // the reader is gone, and so may be `buf`
  if (!st->open) return done.complete(closed_error(*st));
  error_code ec;
  const std::size_t n = st->socket.read_some(net::buffer(buf.data(), buf.size()), ec);
  if (!ec) return done.complete(n);
  if (!would_block(ec)) return done.complete(op_error(*st, ec, "read from"));
  st->socket.async_wait(tcp::socket::wait_read, [st, buf, done](const error_code& wait_ec) {
    if (done.abandoned()) return;
    if (wait_ec) return done.complete(op_error(*st, wait_ec, "read from"));
    attempt_read(st, buf, done);
  });
}

// The bytes still to send: buffers[next..], the first of them already advanced past what went.
struct PendingWrite {
  std::vector<net::const_buffer> buffers;
  std::size_t next = 0;

  bool finished() const { return next == buffers.size(); }
  void consume(std::size_t n) {
    while (n > 0) {
      net::const_buffer& b = buffers[next];
      const std::size_t step = std::min(n, b.size());
      b += step;
      n -= step;
      if (b.size() == 0) ++next;
    }
    while (next < buffers.size() && buffers[next].size() == 0) ++next;
  }
  std::span<const net::const_buffer> rest() const {
    return std::span<const net::const_buffer>(buffers).subspan(next);
  }
};

void attempt_write(const StatePtr& st, const std::shared_ptr<PendingWrite>& w, const WriteDone& done) {
  if (done.abandoned()) return;  // the writer is gone, and so may be its buffers
  if (!st->open) return done.complete(closed_error(*st));
  while (!w->finished()) {
    error_code ec;
    const std::size_t n = st->socket.write_some(w->rest(), ec);  // one sendmsg, up to 64 buffers
    if (ec) {
      if (!would_block(ec)) return done.complete(op_error(*st, ec, "write to"));
      st->socket.async_wait(tcp::socket::wait_write, [st, w, done](const error_code& wait_ec) {
        if (done.abandoned()) return;
        if (wait_ec) return done.complete(op_error(*st, wait_ec, "write to"));
        attempt_write(st, w, done);
      });
      return;
    }
    w->consume(n);
  }
  done.complete(Status{});
}

// Keepalive probes after 10 s idle, 4 more 5 s apart, and TCP_USER_TIMEOUT for unacknowledged data:
// a dead peer ends the connection with ETIMEDOUT within kDeadPeerTimeout (runtime/network.h).
error_code set_dead_peer_timeout(tcp::socket& socket) {
  constexpr int kIdleSeconds = 10;
  constexpr int kIntervalSeconds = 5;
  constexpr int kProbes = 4;
  static_assert(std::chrono::seconds(kIdleSeconds + kIntervalSeconds * kProbes) == kDeadPeerTimeout);
  const int user_timeout_ms = static_cast<int>(std::chrono::duration_cast<std::chrono::milliseconds>(kDeadPeerTimeout).count());
  const int fd = socket.native_handle();
  const std::pair<int, int> options[] = {
      {TCP_KEEPIDLE, kIdleSeconds}, {TCP_KEEPINTVL, kIntervalSeconds}, {TCP_KEEPCNT, kProbes}, {TCP_USER_TIMEOUT, user_timeout_ms}};
  for (const auto& [name, value] : options) {
    if (::setsockopt(fd, IPPROTO_TCP, name, &value, sizeof value) != 0) {
      return error_code(errno, boost::system::system_category());
    }
  }
  return {};
}

}  // namespace

Endpoint to_endpoint(const tcp::endpoint& ep) {
  return Endpoint{ep.address().to_string(), ep.port()};
}

Result<std::pair<Endpoint, Endpoint>> prepare_socket(tcp::socket& socket) {
  error_code ec;
  socket.set_option(tcp::no_delay(true), ec);
  if (!ec) socket.set_option(boost::asio::socket_base::keep_alive(true), ec);
  if (!ec) ec = set_dead_peer_timeout(socket);
  if (!ec) socket.non_blocking(true, ec);
  tcp::endpoint local;
  tcp::endpoint remote;
  if (!ec) local = socket.local_endpoint(ec);
  if (!ec) remote = socket.remote_endpoint(ec);
  if (ec) return net_error(ec, "set up accepted/connected socket");
  return std::pair<Endpoint, Endpoint>(to_endpoint(local), to_endpoint(remote));
}

Result<std::unique_ptr<Connection>> TcpConnection::adopt(tcp::socket socket, Executor& loop,
                                                        std::shared_ptr<RefusalLog> refuse_tls_log) {
  auto ends = prepare_socket(socket);
  if (!ends) return std::move(ends).error();
  auto st = std::make_shared<State>(std::move(socket));
  st->local = ends->first;
  st->peer = ends->second;
  st->refuse_tls_log = std::move(refuse_tls_log);
  return std::unique_ptr<Connection>(new TcpConnection(std::move(st), loop));
}

TcpConnection::TcpConnection(std::shared_ptr<State> state, Executor& loop) : st_(std::move(state)), loop_(loop) {}

TcpConnection::~TcpConnection() { close(); }

Task<Result<std::size_t>> TcpConnection::read_some(MutableBytes buf) {
  FERRY_ASSERT(!buf.empty(), "read_some into an empty buffer from {}", st_->peer.to_string());
  if (!st_->open) co_return closed_error(*st_);
  ReadDone done(loop_);
  if (take_inline_turn()) {
    // Speculative: the bytes are often already there. Completing before the await means the
    // coroutine does not suspend at all; when the socket would block, attempt_read arms an
    // async wait and the completion goes through the executor as usual.
    attempt_read(st_, buf, done);
  } else {
    loop_.post([st = st_, buf, done] { attempt_read(st, buf, done); });
  }
  Result<std::size_t> got = co_await done.wait();
  if (st_->refuse_tls_log != nullptr && got.ok()) {
    const std::shared_ptr<RefusalLog> log = std::exchange(st_->refuse_tls_log, nullptr);
    if (admit_connection(TlsServerMode::disabled, buf[0]) == TlsAdmission::refuse_tls) {
      const std::string why = "TLS handshake from " + st_->peer.to_string() +
                              " refused: tls.server.mode is disabled on " + st_->local.to_string() + "; connection closed";
      log->warn(RefusalLog::Cause::tls_on_plain_listener, why);
      close();
      co_return Error(Errc::reset, why);
    }
  }
  co_return got;
}

bool TcpConnection::take_inline_turn() {
  if (inline_streak_ >= kInlineStreakMax) {
    inline_streak_ = 0;
    return false;
  }
  ++inline_streak_;
  return true;
}

Task<Status> TcpConnection::write(std::span<const Bytes> bufs) {
  if (!st_->open) co_return closed_error(*st_);
  auto w = std::make_shared<PendingWrite>();
  w->buffers.reserve(bufs.size());
  for (const Bytes b : bufs) {
    if (!b.empty()) w->buffers.emplace_back(b.data(), b.size());
  }
  if (w->finished()) co_return Status{};
  WriteDone done(loop_);
  if (take_inline_turn()) {
    attempt_write(st_, w, done);  // speculative, as in read_some
  } else {
    loop_.post([st = st_, w, done] { attempt_write(st, w, done); });
  }
  co_return co_await done.wait();
}

void TcpConnection::close() {
  if (!st_->open) return;
  st_->open = false;
  error_code ignored;
  st_->socket.close(ignored);  // waiting handlers run with operation_aborted
}

bool TcpConnection::is_open() const { return st_->open; }
const Endpoint& TcpConnection::local() const { return st_->local; }
const Endpoint& TcpConnection::peer() const { return st_->peer; }

}  // namespace ferry::asio_rt
