// WireConn: one blocking TCP connection speaking RocketMQ remoting frames, for measurement tools
// that must send what a well-behaved client never would (mqbench hostile) and must not hang on a
// server that freezes or misbehaves: every wait has a deadline.
//
// Not Ferry's RpcClient on purpose: the hostile cases need a connection that stops reading, frames
// a client library would refuse to build, and replies of any size (counted, not kept), and the
// probe must time one request at a time with nothing (retries, pooling) in between.
//
// Threading: one thread per connection. Frames are encoded and decoded with remoting's codec.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "remoting/remoting_command.h"
#include "runtime/result.h"

namespace ferry::bench {

using WireClock = std::chrono::steady_clock;

// A reply as read: the command (its body kept only up to the read's keep limit) and the body's
// full size on the wire.
struct WireReply {
  remoting::RemotingCommand command;
  std::uint64_t body_bytes = 0;
};

class WireConn {
 public:
  WireConn() = default;
  ~WireConn();
  WireConn(const WireConn&) = delete;
  WireConn& operator=(const WireConn&) = delete;

  // Connects to "ip:port" (IPv4 or "localhost"). `receive_buffer_bytes` > 0 sets SO_RCVBUF before
  // connecting (a small one makes a reader that never reads stall the server's writes sooner).
  // Errors: invalid_argument (address), refused / timed_out / io_error.
  Status connect(const std::string& addr, std::chrono::milliseconds timeout, int receive_buffer_bytes = 0);
  bool connected() const { return fd_ >= 0; }
  void close();

  // A request with a fresh opaque (returned), encoded and written whole before `deadline`.
  // Errors: timed_out (part may have been written: close the connection), closed, io_error.
  Result<std::int32_t> send(remoting::RemotingCommand request, WireClock::time_point deadline);
  // Writes `request` without waiting past `deadline`; true when all of it was written. When
  // false, the unwritten rest is kept and the next call finishes it first (its `request` is then
  // ignored): call again with any request until it returns true.
  Result<bool> send_without_blocking(remoting::RemotingCommand request, WireClock::time_point deadline);
  // The next frame, whatever its opaque. Its body is kept up to `body_keep_bytes`, the rest read
  // and dropped (counted in body_bytes). Errors: timed_out, closed (the peer closed), corrupt.
  Result<WireReply> read(WireClock::time_point deadline, std::uint64_t body_keep_bytes = 1 << 20);
  // send() then read() until the reply with the request's opaque arrives.
  Result<WireReply> call(remoting::RemotingCommand request, std::chrono::milliseconds timeout,
                         std::uint64_t body_keep_bytes = 1 << 20);

 private:
  Status write_all(const std::uint8_t* data, std::size_t n, WireClock::time_point deadline);
  Status read_exact(std::uint8_t* data, std::size_t n, WireClock::time_point deadline);
  // Waits for `events` (POLLIN / POLLOUT) until `deadline`. Errors: timed_out, io_error.
  Status wait_for(short events, WireClock::time_point deadline);

  int fd_ = -1;
  std::int32_t next_opaque_ = 1;
  std::vector<std::uint8_t> pending_;  // a send_without_blocking frame ...
  std::size_t pending_pos_ = 0;        // ... written up to here
};

}  // namespace ferry::bench
