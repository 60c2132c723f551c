// Network: listen, connect, and ordered byte-stream connections.
//
// Every failure is a value (Result): refused, reset, eof, timed_out, address_in_use, unreachable,
// closed. A broken connection never reorders bytes: it delivers a prefix of what was sent, then
// an error. Both runtimes implement these interfaces: TCP on Boost.Asio, and the simulator's
// links with latency, partitions and resets.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "runtime/bytes.h"
#include "runtime/result.h"
#include "runtime/task.h"
#include "runtime/time.h"

namespace ferry {

// A connection whose peer shows no sign of life for this long (powered off, partitioned away, its
// host hung) fails on this side with Errc::timed_out, so no code waits forever on a dead peer.
// Production sets TCP keepalive (first probe after 10 s idle, then 4 probes 5 s apart) and
// TCP_USER_TIMEOUT (unacknowledged data) to it; the simulator breaks a connection whose path has
// been down this long (sim NetworkOptions::dead_peer_timeout, this value by default).
inline constexpr Duration kDeadPeerTimeout = std::chrono::seconds(30);

// An IPv4 "a.b.c.d:port" endpoint (RocketMQ addresses are strings of this form).
struct Endpoint {
  std::string host;  // dotted IPv4, e.g. "127.0.0.1"
  std::uint16_t port = 0;

  // Parses "host:port". Errors name the text and what is wrong.
  static Result<Endpoint> parse(std::string_view text);
  std::string to_string() const;
  auto operator<=>(const Endpoint&) const = default;
};

// One side of an established, ordered, reliable byte stream.
//
// Concurrency: at most one read and one write may be in progress at a time (one reader
// coroutine and one writer coroutine is the intended use). The Connection must outlive every
// operation in progress on it; close() first, which completes those operations with
// Errc::closed (through the executor, not inline).
class Connection {
 public:
  virtual ~Connection() = default;

  // Reads at least one byte into `buf` (buf must not be empty) and returns how many.
  // Errors: eof (the peer closed in order; everything it sent was read), reset, closed,
  // timed_out (no sign of the peer for kDeadPeerTimeout; bytes that arrived before are read first).
  virtual Task<Result<std::size_t>> read_some(MutableBytes buf) = 0;
  // Reads exactly buf.size() bytes (read_some until full). Errors: those of read_some; eof
  // before the last byte means the peer closed in the middle.
  Task<Status> read_exact(MutableBytes buf);

  // Writes all of `bufs` in order (a gather write). Completes when the bytes are handed to the
  // transport (kernel socket buffer / simulated link), which is where back-pressure applies: a
  // writer faster than the peer reads waits here. The caller keeps the buffers alive until then.
  // Errors: reset, closed, timed_out (as for read_some). After an error, a prefix of the bytes may
  // have been sent.
  virtual Task<Status> write(std::span<const Bytes> bufs) = 0;
  Task<Status> write(Bytes buf);

  // Closes both directions now. Idempotent. The peer reads eof after what was already sent.
  virtual void close() = 0;
  virtual bool is_open() const = 0;

  virtual const Endpoint& local() const = 0;
  virtual const Endpoint& peer() const = 0;
};

class Listener {
 public:
  virtual ~Listener() = default;
  // Waits for the next incoming connection. Errors: closed (after close()).
  virtual Task<Result<std::unique_ptr<Connection>>> accept() = 0;
  // Stops listening (pending accept completes with closed); established connections stay.
  virtual void close() = 0;
  // The bound address (with the real port when listening on port 0).
  virtual const Endpoint& local() const = 0;
};

class Network {
 public:
  virtual ~Network() = default;
  // Binds and listens now. Port 0 picks a free port. Errors: address_in_use, invalid_argument.
  virtual Result<std::unique_ptr<Listener>> listen(const Endpoint& addr) = 0;
  // Connects to `addr`. Errors: refused (nobody listens), timed_out (after `timeout`, e.g. across
  // a partition), unreachable.
  virtual Task<Result<std::unique_ptr<Connection>>> connect(Endpoint addr, Duration timeout) = 0;
  // The address other nodes reach this node at (e.g. "127.0.0.1", or the simulated IP).
  virtual std::string host() const = 0;
};

}  // namespace ferry
