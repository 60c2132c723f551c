#include "runtime/asio/detecting_connection.h"

#include <boost/asio/error.hpp>

#include <utility>

#include "runtime/asio/errors.h"
#include "runtime/asio/tcp_connection.h"

namespace ferry::asio_rt {

namespace net = boost::asio;
using tcp = net::ip::tcp;
using boost::system::error_code;

Result<std::unique_ptr<Connection>> DetectingConnection::adopt(tcp::socket socket, Executor& loop,
                                                               std::shared_ptr<TlsContexts> tls, spdlog::logger& log) {
  FERRY_ASSERT(tls && tls->server.has_value(), "DetectingConnection needs a server TLS context (mode {})",
               tls ? tls_server_mode_name(tls->server_mode) : "none");
  auto ends = prepare_socket(socket);
  if (!ends) return std::move(ends).error();
  return std::unique_ptr<Connection>(
      new DetectingConnection(std::move(socket), loop, std::move(tls), log, ends->first, ends->second));
}

DetectingConnection::DetectingConnection(tcp::socket socket, Executor& loop, std::shared_ptr<TlsContexts> tls,
                                         spdlog::logger& log, Endpoint local, Endpoint peer)
    : loop_(loop),
      tls_(std::move(tls)),
      log_(log),
      local_(std::move(local)),
      peer_(std::move(peer)),
      raw_(std::make_shared<tcp::socket>(std::move(socket))) {}

DetectingConnection::~DetectingConnection() { close(); }

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
  if (!s) failed_ = s.error();
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

Error DetectingConnection::refuse(const std::string& why) {
  log_.warn("{}", why);
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
      handshaking_ = TlsConnection::prepare(std::move(*raw_), *tls_->server, local_, peer_);
      raw_.reset();
      Task<Result<std::unique_ptr<Connection>>> hs = TlsConnection::handshake(handshaking_, TlsConnection::Role::server, loop_);
      auto secured = co_await std::move(hs);
      handshaking_.reset();
      if (!secured) {
        if (!open_) co_return std::move(secured).error();
        co_return refuse(secured.error().detail + "; connection closed");
      }
      inner_ = std::move(*secured);
      co_return Status{};
    }
    case TlsAdmission::refuse_plain:
      co_return refuse("plain (non-TLS) connection from " + peer_.to_string() + " refused: tls.server.mode is " +
                       std::string(tls_server_mode_name(mode)) + " on " + local_.to_string() + "; connection closed");
    case TlsAdmission::refuse_tls:
      co_return refuse("TLS handshake from " + peer_.to_string() + " refused: tls.server.mode is " +
                       std::string(tls_server_mode_name(mode)) + " on " + local_.to_string() + "; connection closed");
  }
  FERRY_ASSERT(false, "admit_connection returned no admission for byte {:#04x}", *first);
  co_return Status{};
}

void DetectingConnection::close() {
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
