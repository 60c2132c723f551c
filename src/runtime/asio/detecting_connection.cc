#include "runtime/asio/detecting_connection.h"

#include <boost/asio/error.hpp>
#include <fmt/format.h>

#include <utility>

#include "runtime/asio/errors.h"
#include "runtime/asio/tcp_connection.h"

namespace ferry::asio_rt {

namespace net = boost::asio;
using tcp = net::ip::tcp;
using boost::system::error_code;

Result<std::unique_ptr<Connection>> DetectingConnection::adopt(tcp::socket socket, Executor& loop, Timers& timers,
                                                               std::shared_ptr<TlsContexts> tls,
                                                               std::shared_ptr<RefusalLog> log,
                                                               std::shared_ptr<HandshakeGate> gate) {
  FERRY_ASSERT(tls && tls->server.has_value(), "DetectingConnection needs a server TLS context (mode {})",
               tls ? tls_server_mode_name(tls->server_mode) : "none");
  FERRY_ASSERT(gate != nullptr, "DetectingConnection without the listener's handshake gate");
  auto ends = prepare_socket(socket);
  if (!ends) return std::move(ends).error();
  std::unique_ptr<DetectingConnection> c(new DetectingConnection(std::move(socket), loop, timers, std::move(tls), std::move(log),
                                                                 std::move(gate), ends->first, ends->second));
  if (!c->gate_->enter()) {
    // Returned as a connection that fails its first operation: the caller's accept loop goes on.
    const std::string why = fmt::format(
        "connection from {} refused: {} connections are in their TLS handshake on {} already (tls.server.handshakesMax); "
        "connection closed",
        c->peer_.to_string(), c->gate_->max(), c->local_.to_string());
    c->log_->warn(RefusalLog::Cause::handshakes_full, why);
    c->close();
    c->failed_ = Error(Errc::busy, why);
    return std::unique_ptr<Connection>(std::move(c));
  }
  c->counted_ = true;
  DetectingConnection* self = c.get();  // the destructor cancels the timer (both on the loop)
  c->deadline_ = timers.schedule(c->gate_->timeout(), [self] { self->on_deadline(); });
  return std::unique_ptr<Connection>(std::move(c));
}

DetectingConnection::DetectingConnection(tcp::socket socket, Executor& loop, Timers& timers, std::shared_ptr<TlsContexts> tls,
                                         std::shared_ptr<RefusalLog> log, std::shared_ptr<HandshakeGate> gate,
                                         Endpoint local, Endpoint peer)
    : loop_(loop),
      timers_(timers),
      tls_(std::move(tls)),
      log_(std::move(log)),
      gate_(std::move(gate)),
      local_(std::move(local)),
      peer_(std::move(peer)),
      raw_(std::make_shared<tcp::socket>(std::move(socket))) {}

DetectingConnection::~DetectingConnection() { close(); }

void DetectingConnection::settle() {
  if (deadline_) {
    timers_.cancel(*deadline_);
    deadline_.reset();
  }
  if (counted_) {
    gate_->leave();
    counted_ = false;
  }
}

void DetectingConnection::on_deadline() {
  deadline_.reset();
  if (inner_ || !open_) return;
  const std::string why =
      fmt::format("TLS handshake from {} not done {} ms after accept on {} (tls.server.handshakeTimeoutMillis); connection closed",
                  peer_.to_string(), to_ms(gate_->timeout()), local_.to_string());
  log_->warn(RefusalLog::Cause::handshake_timed_out, why);
  timed_out_ = Error(Errc::timed_out, why);
  if (!detecting_) failed_ = timed_out_;
  close();
}

Task<Result<std::size_t>> DetectingConnection::read_some(MutableBytes buf) {
  if (!inner_) {
    Status ok = co_await ready();
    if (!ok) co_return std::move(ok).error();
  }
  co_return co_await inner_->read_some(buf);
}

Task<Status> DetectingConnection::write(std::span<const Bytes> bufs) {
  if (!inner_) {
    Status ok = co_await ready();
    if (!ok) co_return ok;
  }
  co_return co_await inner_->write(bufs);
}

Task<Status> DetectingConnection::ready() {
  if (inner_) co_return Status{};
  if (failed_) co_return *failed_;
  if (!open_) co_return Error(Errc::closed, "connection from " + peer_.to_string() + " was closed locally");
  if (detecting_) {
    FERRY_ASSERT(waiters_.empty(), "a third operation waits for TLS detection on {} (one read and one write at most)",
                 peer_.to_string());
    Completion<Status> waiter(loop_);
    waiters_.push_back(waiter);
    co_return co_await waiter.wait();
  }
  detecting_ = true;
  Status s = co_await detect();
  detecting_ = false;
  settle();
  if (!s) {
    failed_ = timed_out_.value_or(s.error());  // a deadline's close is reported as the deadline
    s = *failed_;
  }
  std::vector<Completion<Status>> waiting = std::exchange(waiters_, {});
  for (const Completion<Status>& w : waiting) w.complete(s);
  co_return s;
}

Task<Result<std::uint8_t>> DetectingConnection::peek_first_byte() {
  const std::shared_ptr<tcp::socket> raw = raw_;
  for (;;) {
    Completion<error_code> readable(loop_);
    readable.on_abandon([raw] {
      error_code ignored;
      raw->close(ignored);
    });
    raw->async_wait(tcp::socket::wait_read, [readable](const error_code& ec) {
      if (!readable.abandoned()) readable.complete(ec);
    });
    const error_code wait_ec = co_await readable.wait();
    if (!open_) co_return Error(Errc::closed, "connection from " + peer_.to_string() + " was closed locally");
    if (wait_ec) co_return net_error(wait_ec, "wait for the first byte from " + peer_.to_string());
    std::uint8_t first = 0;
    error_code ec;
    const std::size_t n = raw->receive(net::buffer(&first, 1), tcp::socket::message_peek, ec);
    if (ec == net::error::would_block || ec == net::error::try_again) continue;  // woken spuriously: wait again
    if (ec) co_return net_error(ec, "peek at the first byte from " + peer_.to_string());
    if (n == 0) co_return Error(Errc::eof, "connection from " + peer_.to_string() + " closed before sending a byte");
    co_return first;
  }
}

Error DetectingConnection::refuse(RefusalLog::Cause cause, const std::string& why) {
  log_->warn(cause, why);
  close();
  return Error(Errc::reset, why);
}

Task<Status> DetectingConnection::detect() {
  Result<std::uint8_t> first = co_await peek_first_byte();
  if (!first) co_return std::move(first).error();
  const TlsServerMode mode = tls_->server_mode;
  switch (admit_connection(mode, *first)) {
    case TlsAdmission::plain: {
      auto plain = TcpConnection::adopt(std::move(*raw_), loop_);
      raw_.reset();
      if (!plain) co_return std::move(plain).error();
      inner_ = std::move(*plain);
      co_return Status{};
    }
    case TlsAdmission::tls: {
      handshaking_ = TlsConnection::prepare(std::move(*raw_), *tls_->server, local_, peer_, tls_);
      raw_.reset();
      Task<Result<std::unique_ptr<Connection>>> hs = TlsConnection::handshake(handshaking_, TlsConnection::Role::server, loop_);
      auto secured = co_await std::move(hs);
      handshaking_.reset();
      if (!secured) {
        if (!open_) co_return std::move(secured).error();
        co_return refuse(RefusalLog::Cause::handshake_failed, secured.error().detail + "; connection closed");
      }
      inner_ = std::move(*secured);
      co_return Status{};
    }
    case TlsAdmission::refuse_plain:
      co_return refuse(RefusalLog::Cause::plain_refused,
                       "plain (non-TLS) connection from " + peer_.to_string() + " refused: tls.server.mode is " +
                           std::string(tls_server_mode_name(mode)) + " on " + local_.to_string() + "; connection closed");
    case TlsAdmission::refuse_tls:
      co_return refuse(RefusalLog::Cause::tls_refused,
                       "TLS handshake from " + peer_.to_string() + " refused: tls.server.mode is " +
                           std::string(tls_server_mode_name(mode)) + " on " + local_.to_string() + "; connection closed");
  }
  FERRY_ASSERT(false, "admit_connection returned no admission for byte {:#04x}", *first);
  co_return Status{};
}

void DetectingConnection::close() {
  settle();
  if (!open_) return;
  open_ = false;
  if (inner_) inner_->close();
  if (handshaking_) TlsConnection::close_socket(*handshaking_);
  if (raw_) {
    error_code ignored;
    raw_->close(ignored);
  }
}

bool DetectingConnection::is_open() const { return open_ && (!inner_ || inner_->is_open()); }
const Endpoint& DetectingConnection::local() const { return local_; }
const Endpoint& DetectingConnection::peer() const { return peer_; }

}  // namespace ferry::asio_rt
