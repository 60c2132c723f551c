#include "tests/support/wire_conn.h"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>
#include <utility>

#include "remoting/frame_codec.h"
#include "remoting/response_code.h"
#include "runtime/assert.h"

namespace ferry::testing {

namespace {

// A frame larger than this is not a reply (remoting's frame limit is 16 MiB; an old broker's
// VIEW_MESSAGE_BY_ID copied up to a whole CommitLog file, so the reader allows more and counts it).
constexpr std::uint32_t kFrameBytesReadMax = 0x7FFF'FFFF;
// The chunk a body beyond the keep limit is read and dropped in.
constexpr std::size_t kDropChunkBytes = 64 * 1024;
// The longest single poll(); a longer deadline polls again.
constexpr long long kPollSliceMs = 1'000'000;

std::uint32_t read_be32(const std::uint8_t* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) | std::uint32_t{p[3]};
}

int poll_ms(WireClock::time_point deadline) {
  const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - WireClock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left, kPollSliceMs));
}

// The error of a failed send()/recv() (errno is set): reset for a peer that is gone, else io_error.
Error socket_error(const char* what) {
  const int e = errno;
  const bool peer_gone = e == EPIPE || e == ECONNRESET;
  return Error(peer_gone ? Errc::reset : Errc::io_error, fmt::format("{}: {}", what, std::strerror(e)));
}

Error connect_error(const std::string& addr, int e) {
  return Error(e == ECONNREFUSED ? Errc::refused : Errc::io_error, fmt::format("connect {}: {}", addr, std::strerror(e)));
}

// "ip:port" (or "localhost:port") as an IPv4 socket address. Errors: invalid_argument.
Result<sockaddr_in> parse_ipv4(const std::string& addr) {
  const auto colon = addr.rfind(':');
  if (colon == std::string::npos) return Error(Errc::invalid_argument, fmt::format("'{}' is not ip:port", addr));
  std::string host = addr.substr(0, colon);
  if (host == "localhost") host = "127.0.0.1";
  const std::string port_text = addr.substr(colon + 1);
  int port = 0;
  const bool digits = !port_text.empty() && port_text.size() <= 5 &&
                      port_text.find_first_not_of("0123456789") == std::string::npos;
  if (digits) port = std::stoi(port_text);
  sockaddr_in sa{};
  sa.sin_family = AF_INET;
  if (port <= 0 || port > 65535 || ::inet_pton(AF_INET, host.c_str(), &sa.sin_addr) != 1) {
    return Error(Errc::invalid_argument, fmt::format("'{}' is not an IPv4 ip:port", addr));
  }
  sa.sin_port = htons(static_cast<std::uint16_t>(port));
  return sa;
}

}  // namespace

std::string loopback_addr(std::uint16_t port) { return fmt::format("127.0.0.1:{}", port); }

WireConn::~WireConn() { close(); }

WireConn::WireConn(WireConn&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      next_opaque_(other.next_opaque_),
      pending_(std::move(other.pending_)),
      pending_pos_(std::exchange(other.pending_pos_, 0)) {
  other.pending_.clear();
}

WireConn& WireConn::operator=(WireConn&& other) noexcept {
  if (this != &other) {
    close();
    fd_ = std::exchange(other.fd_, -1);
    next_opaque_ = other.next_opaque_;
    pending_ = std::move(other.pending_);
    pending_pos_ = std::exchange(other.pending_pos_, 0);
    other.pending_.clear();
  }
  return *this;
}

void WireConn::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  pending_.clear();
  pending_pos_ = 0;
}

Status WireConn::connect(const std::string& addr, std::chrono::milliseconds timeout, int receive_buffer_bytes) {
  FERRY_ASSERT(timeout.count() >= 0, "connect to {} with a negative timeout of {} ms", addr, timeout.count());
  FERRY_ASSERT(receive_buffer_bytes >= 0, "SO_RCVBUF of {} bytes", receive_buffer_bytes);
  close();
  auto sa = parse_ipv4(addr);
  if (!sa.ok()) return std::move(sa).error();
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd_ < 0) return Error(Errc::io_error, fmt::format("socket: {}", std::strerror(errno)));
  const int one = 1;
  ::setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (receive_buffer_bytes > 0) ::setsockopt(fd_, SOL_SOCKET, SO_RCVBUF, &receive_buffer_bytes, sizeof receive_buffer_bytes);
  if (::connect(fd_, reinterpret_cast<const sockaddr*>(&*sa), sizeof *sa) != 0 && errno != EINPROGRESS) {
    const int e = errno;
    close();
    return connect_error(addr, e);
  }
  if (Status writable = wait_for(POLLOUT, WireClock::now() + timeout); !writable.ok()) {
    close();
    return writable;
  }
  int err = 0;
  socklen_t len = sizeof err;
  ::getsockopt(fd_, SOL_SOCKET, SO_ERROR, &err, &len);
  if (err != 0) {
    close();
    return connect_error(addr, err);
  }
  return {};
}

std::int32_t WireConn::take_opaque() {
  const std::int32_t opaque = next_opaque_;
  next_opaque_ = next_opaque_ == std::numeric_limits<std::int32_t>::max() ? 1 : next_opaque_ + 1;
  return opaque;
}

Status WireConn::wait_for(short events, WireClock::time_point deadline) {
  FERRY_ASSERT(fd_ >= 0, "waiting on a connection that is not open");
  for (;;) {
    pollfd p{fd_, events, 0};
    const int n = ::poll(&p, 1, poll_ms(deadline));
    if (n > 0) return {};
    if (n == 0 && WireClock::now() >= deadline) return Error(Errc::timed_out, "no progress before the deadline");
    if (n < 0 && errno != EINTR) return Error(Errc::io_error, fmt::format("poll: {}", std::strerror(errno)));
  }
}

Status WireConn::write_all(const std::uint8_t* data, std::size_t n, WireClock::time_point deadline) {
  while (n > 0) {
    const ssize_t w = ::send(fd_, data, n, MSG_NOSIGNAL);
    if (w > 0) {
      data += w;
      n -= static_cast<std::size_t>(w);
      continue;
    }
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      FERRY_TRY(wait_for(POLLOUT, deadline));
      continue;
    }
    return socket_error("send");
  }
  return {};
}

Status WireConn::read_exact(std::uint8_t* data, std::size_t n, WireClock::time_point deadline) {
  while (n > 0) {
    const ssize_t r = ::recv(fd_, data, n, 0);
    if (r > 0) {
      data += r;
      n -= static_cast<std::size_t>(r);
      continue;
    }
    if (r == 0) return Error(Errc::eof, "the server closed the connection");
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      FERRY_TRY(wait_for(POLLIN, deadline));
      continue;
    }
    return socket_error("recv");
  }
  return {};
}

Result<std::int32_t> WireConn::send(remoting::RemotingCommand request, WireClock::time_point deadline) {
  if (fd_ < 0) return Error(Errc::closed, "not connected");
  request.opaque = take_opaque();
  auto frame = remoting::encode_frame(request);
  if (!frame.ok()) return std::move(frame).error();
  FERRY_TRY(write_all(frame->data(), frame->size(), deadline));
  return request.opaque;
}

Result<bool> WireConn::send_without_blocking(remoting::RemotingCommand request, WireClock::time_point deadline) {
  if (fd_ < 0) return Error(Errc::closed, "not connected");
  if (pending_pos_ == pending_.size()) {  // nothing pending: this request becomes the pending frame
    request.opaque = take_opaque();
    auto frame = remoting::encode_frame(request);
    if (!frame.ok()) return std::move(frame).error();
    pending_ = std::move(*frame);
    pending_pos_ = 0;
  }
  while (pending_pos_ < pending_.size()) {
    const ssize_t w = ::send(fd_, pending_.data() + pending_pos_, pending_.size() - pending_pos_, MSG_NOSIGNAL);
    if (w > 0) {
      pending_pos_ += static_cast<std::size_t>(w);
      continue;
    }
    if (w < 0 && errno == EINTR) continue;
    if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
      Status st = wait_for(POLLOUT, deadline);
      if (st.ok()) continue;
      if (st.error().is(Errc::timed_out)) return false;  // the rest stays pending for the next call
      return std::move(st).error();
    }
    return socket_error("send");
  }
  return true;
}

Result<WireReply> WireConn::read(WireClock::time_point deadline, std::uint64_t body_keep_bytes) {
  if (fd_ < 0) return Error(Errc::closed, "not connected");
  std::uint8_t prefix[remoting::kFramePrefixBytes];
  FERRY_TRY(read_exact(prefix, sizeof prefix, deadline));
  const std::uint32_t total = read_be32(prefix);
  const std::uint32_t header_len = read_be32(prefix + remoting::kLengthFieldBytes) & remoting::kHeaderLenMask;
  if (total < remoting::kMarkedHeaderLenBytes || total > kFrameBytesReadMax ||
      header_len > total - remoting::kMarkedHeaderLenBytes) {
    return Error(Errc::corrupt, fmt::format("a frame of {} bytes with a {}-byte header", total, header_len));
  }
  // The header (and the body up to the keep limit) decoded as one frame payload; the rest of the
  // body read in chunks and dropped.
  const std::uint64_t body = total - remoting::kMarkedHeaderLenBytes - header_len;
  const std::uint64_t keep = std::min(body, body_keep_bytes);
  std::vector<std::uint8_t> payload(remoting::kMarkedHeaderLenBytes + header_len + keep);
  std::memcpy(payload.data(), prefix + remoting::kLengthFieldBytes, remoting::kMarkedHeaderLenBytes);
  FERRY_TRY(read_exact(payload.data() + remoting::kMarkedHeaderLenBytes, payload.size() - remoting::kMarkedHeaderLenBytes,
                       deadline));
  if (const std::uint64_t drop = body - keep; drop > 0) {
    std::vector<std::uint8_t> sink(static_cast<std::size_t>(std::min<std::uint64_t>(drop, kDropChunkBytes)));
    for (std::uint64_t left = drop; left > 0;) {
      const std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(left, sink.size()));
      FERRY_TRY(read_exact(sink.data(), n, deadline));
      left -= n;
    }
  }
  auto cmd = remoting::decode_frame_payload(Bytes(payload.data(), payload.size()));
  if (!cmd.ok()) return std::move(cmd).error();
  return WireReply{std::move(*cmd), body};
}

Result<WireReply> WireConn::call(remoting::RemotingCommand request, std::chrono::milliseconds timeout,
                                 std::uint64_t body_keep_bytes) {
  FERRY_ASSERT(timeout.count() >= 0, "a call with a negative timeout of {} ms", timeout.count());
  const auto deadline = WireClock::now() + timeout;
  auto opaque = send(std::move(request), deadline);
  if (!opaque.ok()) return std::move(opaque).error();
  for (;;) {
    auto reply = read(deadline, body_keep_bytes);
    if (!reply.ok()) return reply;
    if (reply->command.opaque == *opaque && reply->command.is_response()) return reply;
  }
}

bool WireConn::closed_by_peer(std::chrono::milliseconds timeout) {
  if (fd_ < 0) return true;
  const auto deadline = WireClock::now() + timeout;
  std::vector<std::uint8_t> sink(kDropChunkBytes);
  for (;;) {
    const ssize_t r = ::recv(fd_, sink.data(), sink.size(), 0);
    if (r == 0) return true;  // the end of the stream
    if (r > 0 || errno == EINTR) continue;  // what the peer sent meanwhile is dropped
    if (errno != EAGAIN && errno != EWOULDBLOCK) return true;  // ECONNRESET and the like
    if (!wait_for(POLLIN, deadline).ok()) return false;  // still open at the deadline
  }
}

std::int32_t reply_code(const Result<WireReply>& reply) { return reply.ok() ? reply->command.code : -1; }

std::string reply_text(const Result<WireReply>& reply) {
  if (!reply.ok()) return "no reply: " + reply.error().to_string();
  const remoting::RemotingCommand& c = reply->command;
  return fmt::format("reply {}{}", code_text(c.code), c.remark ? ": " + *c.remark : "");
}

std::string code_text(std::int32_t code) { return fmt::format("{} {}", code, remoting::response_code::name(code)); }

}  // namespace ferry::testing
