#include "tests/daemons/raw_conn.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <vector>

#include "remoting/frame_codec.h"
#include "tests/daemons/daemon_process.h"

namespace ferry::daemons_test {

namespace {

using Clock = std::chrono::steady_clock;

int ms_left(Clock::time_point end) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now()).count();
  return left < 0 ? 0 : static_cast<int>(left);
}

// Waits for `events` on `fd` until `end`: true when ready (or hung up), false on timeout.
bool wait_for(int fd, short events, Clock::time_point end) {
  while (true) {
    pollfd p{fd, events, 0};
    const int r = ::poll(&p, 1, ms_left(end));
    if (r > 0) return true;
    if (r == 0) return false;
    if (errno != EINTR) return false;
  }
}

}  // namespace

RawConn::RawConn(std::uint16_t port) {
  fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd_ < 0) {
    error_ = std::string("socket: ") + std::strerror(errno);
    return;
  }
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    error_ = std::string("connect: ") + std::strerror(errno);
    close();
  }
}

RawConn::~RawConn() { close(); }

RawConn::RawConn(RawConn&& o) noexcept : fd_(o.fd_), next_opaque_(o.next_opaque_), error_(std::move(o.error_)) {
  o.fd_ = -1;
}

void RawConn::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

bool RawConn::send(const remoting::RemotingCommand& cmd, std::chrono::milliseconds timeout) {
  if (fd_ < 0) return false;
  auto frame = remoting::encode_frame(cmd);
  if (!frame) {
    error_ = frame.error().to_string();
    return false;
  }
  const auto end = Clock::now() + timeout;
  std::size_t done = 0;
  while (done < frame->size()) {
    if (!wait_for(fd_, POLLOUT, end)) {
      error_ = "write did not finish in time (the peer does not read)";
      return false;
    }
    const ssize_t n = ::send(fd_, frame->data() + done, frame->size() - done, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (n <= 0) {
      error_ = std::string("send: ") + std::strerror(errno);
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

std::optional<remoting::RemotingCommand> RawConn::receive(std::chrono::milliseconds timeout) {
  if (fd_ < 0) return std::nullopt;
  const auto end = Clock::now() + timeout;
  auto read_exactly = [&](std::uint8_t* out, std::size_t size) -> bool {
    std::size_t done = 0;
    while (done < size) {
      if (!wait_for(fd_, POLLIN, end)) {
        error_ = "no whole frame in time";
        return false;
      }
      const ssize_t n = ::recv(fd_, out + done, size - done, MSG_DONTWAIT);
      if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
      if (n == 0) {
        error_ = "EOF";
        return false;
      }
      if (n < 0) {
        error_ = std::string("recv: ") + std::strerror(errno);
        return false;
      }
      done += static_cast<std::size_t>(n);
    }
    return true;
  };
  std::uint8_t len_be[4];
  if (!read_exactly(len_be, 4)) return std::nullopt;
  const std::int32_t len = static_cast<std::int32_t>((std::uint32_t{len_be[0]} << 24) | (std::uint32_t{len_be[1]} << 16) |
                                                     (std::uint32_t{len_be[2]} << 8) | std::uint32_t{len_be[3]});
  if (Status ok = remoting::check_frame_length(len, remoting::kFrameBytesMaxDefault); !ok.ok()) {
    error_ = ok.error().to_string();
    return std::nullopt;
  }
  std::vector<std::uint8_t> payload(static_cast<std::size_t>(len));
  if (!read_exactly(payload.data(), payload.size())) return std::nullopt;
  auto cmd = remoting::decode_frame_payload(Bytes(payload.data(), payload.size()));
  if (!cmd) {
    error_ = cmd.error().to_string();
    return std::nullopt;
  }
  return std::move(*cmd);
}

std::optional<remoting::RemotingCommand> RawConn::request(remoting::RemotingCommand cmd,
                                                          std::chrono::milliseconds timeout) {
  cmd.opaque = next_opaque_++;
  const auto end = Clock::now() + timeout;
  if (!send(cmd, timeout)) return std::nullopt;
  while (true) {
    auto reply = receive(std::chrono::milliseconds(ms_left(end)));
    if (!reply) return std::nullopt;
    if (reply->is_response() && reply->opaque == cmd.opaque) return reply;
  }
}

int RawConn::call(remoting::RemotingCommand cmd, std::chrono::milliseconds timeout) {
  auto reply = request(std::move(cmd), timeout);
  return reply ? reply->code : -1;
}

bool RawConn::closed_by_peer(std::chrono::milliseconds timeout) {
  if (fd_ < 0) return true;
  const auto end = Clock::now() + timeout;
  std::vector<std::uint8_t> sink(64 * 1024);
  while (true) {
    if (!wait_for(fd_, POLLIN, end)) return false;
    const ssize_t n = ::recv(fd_, sink.data(), sink.size(), MSG_DONTWAIT);
    if (n == 0) return true;
    if (n < 0 && errno != EAGAIN && errno != EINTR) return true;  // ECONNRESET and the like
  }
}

std::int64_t rss_anon_kib(pid_t pid) {
  const std::string status = read_file("/proc/" + std::to_string(pid) + "/status");
  const auto at = status.find("RssAnon:");
  if (at == std::string::npos) return -1;
  return std::strtoll(status.c_str() + at + std::strlen("RssAnon:"), nullptr, 10);
}

std::int64_t open_fd_count(pid_t pid) {
  std::error_code ec;
  std::int64_t n = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    ++n;
  }
  return ec ? -1 : n;
}

std::size_t count_of(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (auto at = text.find(needle); at != std::string::npos; at = text.find(needle, at + needle.size())) ++n;
  return n;
}

}  // namespace ferry::daemons_test
