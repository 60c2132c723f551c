// DelayRelay: the runner's own way to clog a link (`clog`: extra latency on every byte from one
// host to another) where the kernel has no netem qdisc. One relay a host, a thread of the runner
// inside the host's namespace: an nftables NAT rule there sends every TCP connection the host
// opens to a clogged peer through the relay (listening on 127.0.0.1), which opens the connection
// onward from the host's own address (its sockets are marked, so the rule lets them pass) and
// copies the bytes both ways, each direction late by the clog of that direction now (0 when
// unclogged), in order. The peer sees the host's address; the host's partition rules apply to the
// relay's connections too.
//
// What differs from netem: the delay is on bytes as the relay reads them, not on packets; TCP's
// own acknowledgements are not delayed (the sender's window opens at once, the reader gets the
// bytes late), and a connection the relay holds closes on the other side only after its delayed
// bytes are written. The report says which was used.
//
// Only connections opened after the relay's rule exists pass through it: the runner installs the
// rules for every pair a scenario ever clogs before anything starts.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "runtime/result.h"
#include "runtime/time.h"

namespace ferry::sim::real {

class Testbed;

// The clog of each direction between hosts, read by every relay (thread-safe).
class Clogs {
 public:
  void set(const std::string& from, const std::string& to, Duration extra);
  Duration of(const std::string& from, const std::string& to) const;
  void clear();

 private:
  mutable std::mutex mu_;
  std::map<std::pair<std::string, std::string>, Duration> extra_;
};

class DelayRelay {
 public:
  // Starts the relay of `host` for its connections to `peers` (hosts of `testbed`): the NAT rule
  // in the host's namespace, the listener, the accepting thread. Errors: the rule or the listener.
  static Result<std::unique_ptr<DelayRelay>> start(const Testbed& testbed, std::string host, std::vector<std::string> peers,
                                                   std::shared_ptr<const Clogs> clogs);
  ~DelayRelay();  // stop()
  DelayRelay(const DelayRelay&) = delete;
  DelayRelay& operator=(const DelayRelay&) = delete;

  // Closes the listener and every relayed connection, joins the threads.
  void stop();
  std::uint64_t connections() const { return connections_.load(); }

 private:
  struct Pipe;
  DelayRelay() = default;
  void accept_loop();
  void relay(int client_fd);

  std::string host_;
  std::map<std::string, std::string> peer_by_ip_;
  std::shared_ptr<const Clogs> clogs_;
  int netns_fd_ = -1;
  int listen_fd_ = -1;
  std::uint16_t port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<std::uint64_t> connections_{0};
  std::thread acceptor_;
  std::mutex mu_;
  std::vector<std::shared_ptr<Pipe>> pipes_;
};

// The packet mark of the relays' own sockets (the NAT rule skips them).
inline constexpr std::uint32_t kRelayMark = 0x7731;

}  // namespace ferry::sim::real
