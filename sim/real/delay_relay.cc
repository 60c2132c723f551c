#include "sim/real/delay_relay.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <linux/netfilter_ipv4.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <functional>

#include <fmt/format.h>

#include "sim/real/host_command.h"
#include "sim/real/testbed.h"

namespace ferry::sim::real {

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kChunkBytes = 64 * 1024;
constexpr auto kConnectTimeout = std::chrono::seconds(3);

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

// Ends `fd` with a reset (what a peer sees when the relay could not reach the other side).
void reset(int fd) {
  linger l{1, 0};
  setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
  ::shutdown(fd, SHUT_RDWR);
}

std::string ip_text(const sockaddr_in& a) {
  char buf[INET_ADDRSTRLEN] = {};
  inet_ntop(AF_INET, &a.sin_addr, buf, sizeof buf);
  return buf;
}

// Connects `fd` to `to` within kConnectTimeout.
bool connect_within(int fd, const sockaddr_in& to) {
  const int flags = fcntl(fd, F_GETFL, 0);
  fcntl(fd, F_SETFL, flags | O_NONBLOCK);
  int r = ::connect(fd, reinterpret_cast<const sockaddr*>(&to), sizeof to);
  if (r != 0 && errno != EINPROGRESS) return false;
  if (r != 0) {
    fd_set w;
    FD_ZERO(&w);
    FD_SET(fd, &w);
    timeval tv{static_cast<long>(kConnectTimeout.count()), 0};
    if (select(fd + 1, nullptr, &w, nullptr, &tv) <= 0) return false;
    int err = 0;
    socklen_t len = sizeof err;
    getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err != 0) return false;
  }
  fcntl(fd, F_SETFL, flags);
  return true;
}

}  // namespace

// ---- Clogs ---------------------------------------------------------------------------------

void Clogs::set(const std::string& from, const std::string& to, Duration extra) {
  std::lock_guard<std::mutex> l(mu_);
  if (extra <= Duration{}) {
    extra_.erase({from, to});
  } else {
    extra_[{from, to}] = extra;
  }
}

Duration Clogs::of(const std::string& from, const std::string& to) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = extra_.find({from, to});
  return it == extra_.end() ? Duration{} : it->second;
}

void Clogs::clear() {
  std::lock_guard<std::mutex> l(mu_);
  extra_.clear();
}

// ---- one relayed connection ------------------------------------------------------------------

// One direction of a relayed connection: a reader that stamps each chunk with when it may go on,
// and a writer that sends it then, in order.
struct Direction {
  struct Chunk {
    Clock::time_point release;
    std::string bytes;  // empty: end of stream (eof) or error
    bool error = false;
  };
  std::mutex mu;
  std::condition_variable cv;
  std::deque<Chunk> queue;
  Clock::time_point last_release{};
  bool stop = false;
};

struct DelayRelay::Pipe {
  int client = -1;    // the host's application's side (accepted)
  int upstream = -1;  // toward the peer, from the host's address
  Direction up, down;  // host -> peer, peer -> host
  std::vector<std::thread> threads;
};

namespace {

void read_side(int from, Direction& d, const std::function<Duration()>& delay) {
  std::string buf(kChunkBytes, '\0');
  for (;;) {
    const ssize_t n = ::read(from, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    std::lock_guard<std::mutex> l(d.mu);
    Direction::Chunk c;
    const Clock::time_point now = Clock::now();
    c.release = std::max(d.last_release, now + std::chrono::duration_cast<Clock::duration>(delay()));
    d.last_release = c.release;
    if (n > 0) c.bytes.assign(buf.data(), static_cast<std::size_t>(n));
    c.error = n < 0;
    d.queue.push_back(std::move(c));
    d.cv.notify_all();
    if (n <= 0) return;
  }
}

void write_side(int to, Direction& d) {
  for (;;) {
    Direction::Chunk c;
    {
      std::unique_lock<std::mutex> l(d.mu);
      d.cv.wait(l, [&] { return d.stop || !d.queue.empty(); });
      if (d.queue.empty()) return;  // stopped
      c = std::move(d.queue.front());
      d.queue.pop_front();
      // Wait for the chunk's time; a stop cuts the wait short.
      if (d.cv.wait_until(l, c.release, [&] { return d.stop; })) return;
    }
    if (c.bytes.empty()) {
      if (c.error) {
        reset(to);
      } else {
        ::shutdown(to, SHUT_WR);
      }
      return;
    }
    std::size_t done = 0;
    while (done < c.bytes.size()) {
      const ssize_t n = ::write(to, c.bytes.data() + done, c.bytes.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;
      done += static_cast<std::size_t>(n);
    }
  }
}

}  // namespace

// ---- DelayRelay ----------------------------------------------------------------------------

Result<std::unique_ptr<DelayRelay>> DelayRelay::start(const Testbed& testbed, std::string host, std::vector<std::string> peers,
                                                      std::shared_ptr<const Clogs> clogs) {
  std::unique_ptr<DelayRelay> r(new DelayRelay());
  r->host_ = std::move(host);
  r->clogs_ = std::move(clogs);
  r->netns_fd_ = testbed.netns_fd(r->host_);
  std::string ips;
  for (const std::string& p : peers) {
    r->peer_by_ip_.emplace(testbed.ip(p), p);
    ips += (ips.empty() ? "" : ", ") + testbed.ip(p);
  }
  // The listener, made inside the host's namespace.
  std::string failure;
  std::thread([&] {
    if (setns(r->netns_fd_, CLONE_NEWNET) != 0) {
      failure = fmt::format("setns: {}", std::strerror(errno));
      return;
    }
    r->listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (bind(r->listen_fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || listen(r->listen_fd_, 128) != 0 ||
        getsockname(r->listen_fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
      failure = fmt::format("relay listener: {}", std::strerror(errno));
      return;
    }
    r->port_ = ntohs(a.sin_port);
  }).join();
  if (!failure.empty()) return Error(Errc::io_error, fmt::format("relay of {}: {}", r->host_, failure));
  // Every TCP connection the host opens to a peer goes to the relay, but the relay's own.
  const std::string script = fmt::format(
      "table ip ferry_relay {{\n"
      "  chain out {{ type nat hook output priority -100; policy accept;\n"
      "    meta mark {:#x} accept\n"
      "    ip daddr {{ {} }} meta l4proto tcp redirect to :{}\n"
      "  }}\n"
      "}}\n",
      kRelayMark, ips, r->port_);
  auto applied = run_in_netns(r->netns_fd_, {find_program("nft"), "-f", "-"}, script);
  if (!applied.ok()) return applied.error();
  r->acceptor_ = std::thread([self = r.get()] { self->accept_loop(); });
  return r;
}

DelayRelay::~DelayRelay() { stop(); }

void DelayRelay::accept_loop() {
  if (setns(netns_fd_, CLONE_NEWNET) != 0) return;
  for (;;) {
    const int fd = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (stopping_.load()) {
      if (fd >= 0) ::close(fd);
      return;
    }
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      return;
    }
    relay(fd);
  }
}

void DelayRelay::relay(int client_fd) {
  auto p = std::make_shared<Pipe>();
  p->client = client_fd;
  sockaddr_in dst{};
  socklen_t len = sizeof dst;
  if (getsockopt(client_fd, SOL_IP, SO_ORIGINAL_DST, &dst, &len) != 0) {
    reset(client_fd);
    ::close(client_fd);
    return;
  }
  const auto peer_it = peer_by_ip_.find(ip_text(dst));
  const std::string peer = peer_it != peer_by_ip_.end() ? peer_it->second : ip_text(dst);
  // Onward from the host's own address (this thread is in its namespace), marked so that the
  // redirect lets it pass.
  p->upstream = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int mark = static_cast<int>(kRelayMark);
  setsockopt(p->upstream, SOL_SOCKET, SO_MARK, &mark, sizeof mark);
  const int one = 1;
  setsockopt(p->upstream, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  setsockopt(p->client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  if (!connect_within(p->upstream, dst)) {
    reset(p->client);
    close_fd(p->client);
    close_fd(p->upstream);
    return;
  }
  connections_.fetch_add(1);
  auto clogs = clogs_;
  const std::string host = host_;
  Pipe* raw = p.get();
  raw->threads.emplace_back([raw, clogs, host, peer] { read_side(raw->client, raw->up, [&] { return clogs->of(host, peer); }); });
  raw->threads.emplace_back([raw] { write_side(raw->upstream, raw->up); });
  raw->threads.emplace_back([raw, clogs, host, peer] { read_side(raw->upstream, raw->down, [&] { return clogs->of(peer, host); }); });
  raw->threads.emplace_back([raw] { write_side(raw->client, raw->down); });
  std::lock_guard<std::mutex> l(mu_);
  pipes_.push_back(std::move(p));
}

void DelayRelay::stop() {
  if (stopping_.exchange(true)) return;
  if (listen_fd_ >= 0) ::shutdown(listen_fd_, SHUT_RDWR);
  if (acceptor_.joinable()) acceptor_.join();
  close_fd(listen_fd_);
  std::lock_guard<std::mutex> l(mu_);
  for (const std::shared_ptr<Pipe>& p : pipes_) {
    for (Direction* d : {&p->up, &p->down}) {
      std::lock_guard<std::mutex> dl(d->mu);
      d->stop = true;
      d->cv.notify_all();
    }
    ::shutdown(p->client, SHUT_RDWR);
    ::shutdown(p->upstream, SHUT_RDWR);
  }
  for (const std::shared_ptr<Pipe>& p : pipes_) {
    for (std::thread& t : p->threads) t.join();
    close_fd(p->client);
    close_fd(p->upstream);
  }
  pipes_.clear();
}

}  // namespace ferry::sim::real
