// WireConn: one blocking TCP connection speaking RocketMQ remoting frames, for code that must send
// what a well-behaved client never would and must not hang on a server that freezes or
// misbehaves: every wait has a deadline. The one raw-wire client of the tree: `mqbench hostile`
// (tools/bench) and the daemon tests' limit cases (tests/daemons) both use it.
//
// Not Ferry's RpcClient on purpose: the hostile and limit cases need a connection that never
// speaks, one that stops reading its replies, frames a client library would refuse to build,
// replies of any size (counted, not kept), telling "the server closed it" from "it is still
// open", and one request at a time with nothing (retries, pooling, reconnects) in between.
//
// Errors are values: every operation returns a Status / Result whose code says what happened:
//   refused    connect: nobody listens there
//   timed_out  the deadline passed (a write may have been left half done: close the connection)
//   eof        the peer closed the connection in order
//   reset      the peer reset it (or a write met a closed peer: EPIPE)
//   closed     not connected (never connected, or close() was called)
//   corrupt    a frame that is not a remoting frame (a length out of range, a bad header)
//   io_error   any other socket error (the errno text is in the detail)
//   invalid_argument  an address that is not IPv4 ip:port, or a request that cannot be encoded
//
// Threading: a WireConn is used by one thread at a time. Frames are encoded and decoded with
// remoting's codec (remoting/frame_codec.h). Tests and tools may use POSIX sockets; components
// may not (tools/check-determinism.sh).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "remoting/remoting_command.h"
#include "runtime/result.h"

namespace ferry::testing {

using WireClock = std::chrono::steady_clock;

// How much of a reply's body read() and call() keep unless told otherwise; the rest is read and
// dropped (and counted in WireReply::body_bytes).
inline constexpr std::uint64_t kBodyKeepBytesDefault = std::uint64_t{1} << 20;

// A reply as read: the command (its body kept only up to the read's keep limit) and the body's
// full size on the wire.
struct WireReply {
  remoting::RemotingCommand command;
  std::uint64_t body_bytes = 0;
};

// "127.0.0.1:<port>": a daemon of this machine, as connect() takes it.
std::string loopback_addr(std::uint16_t port);

class WireConn {
 public:
  WireConn() = default;
  ~WireConn();  // closes the socket; an unfinished send_without_blocking frame is dropped
  WireConn(WireConn&& other) noexcept;  // `other` is left not connected
  WireConn& operator=(WireConn&& other) noexcept;
  WireConn(const WireConn&) = delete;
  WireConn& operator=(const WireConn&) = delete;

  // Connects to "ip:port" (IPv4, or "localhost"), closing any connection held before.
  // `receive_buffer_bytes` > 0 sets SO_RCVBUF before connecting (a small one makes a reader that
  // never reads stall the server's writes sooner). Errors: invalid_argument (the address),
  // refused, timed_out (no handshake within `timeout`), io_error.
  Status connect(const std::string& addr, std::chrono::milliseconds timeout, int receive_buffer_bytes = 0);
  bool connected() const { return fd_ >= 0; }
  void close();

  // Gives `request` the next opaque (returned) and writes its whole frame before `deadline`.
  // Errors: closed, invalid_argument (the frame cannot be encoded), timed_out (part may have been
  // written: close the connection), reset, io_error.
  Result<std::int32_t> send(remoting::RemotingCommand request, WireClock::time_point deadline);
  // Writes `request` without waiting past `deadline`; true when all of it was written. When false,
  // the unwritten rest is kept and the next call finishes it first (its `request` is then
  // ignored): call again with any request until it returns true. At most one frame is pending.
  // Errors: as send(), except that the deadline passing is the answer false, not timed_out.
  Result<bool> send_without_blocking(remoting::RemotingCommand request, WireClock::time_point deadline);
  // The next frame, whatever its opaque (a late reply, a request from the server). Its body is
  // kept up to `body_keep_bytes`, the rest read and dropped (counted in body_bytes); memory is
  // bounded by the header (at most 16 MiB) plus the kept bytes. Errors: closed, timed_out, eof,
  // reset, corrupt, io_error.
  Result<WireReply> read(WireClock::time_point deadline, std::uint64_t body_keep_bytes = kBodyKeepBytesDefault);
  // send(), then read() until the reply carrying the request's opaque arrives (other frames are
  // skipped), all within `timeout`. Errors: send()'s and read()'s.
  Result<WireReply> call(remoting::RemotingCommand request, std::chrono::milliseconds timeout,
                         std::uint64_t body_keep_bytes = kBodyKeepBytesDefault);
  // Reads until the peer closes the connection or `timeout` passes, discarding what it sends
  // meanwhile: true once a read meets the end of the stream or an error (a reset), and when not
  // connected; false while the connection stays open. The connection is unusable for frames
  // afterwards (bytes were dropped): close it.
  bool closed_by_peer(std::chrono::milliseconds timeout);

 private:
  std::int32_t take_opaque();
  Status write_all(const std::uint8_t* data, std::size_t n, WireClock::time_point deadline);
  Status read_exact(std::uint8_t* data, std::size_t n, WireClock::time_point deadline);
  // Waits for `events` (POLLIN / POLLOUT) until `deadline`. Errors: timed_out, io_error.
  Status wait_for(short events, WireClock::time_point deadline);

  int fd_ = -1;
  std::int32_t next_opaque_ = 1;         // 1 .. INT32_MAX, then 1 again
  std::vector<std::uint8_t> pending_;  // a send_without_blocking frame ...
  std::size_t pending_pos_ = 0;        // ... written up to here
};

// For assertions and reports on a call()'s outcome:
// the reply's code, or -1 when there is no reply (`reply` holds an error);
std::int32_t reply_code(const Result<WireReply>& reply);
// "reply 13 MESSAGE_ILLEGAL: <remark>", or "no reply: timed_out: ..." ;
std::string reply_text(const Result<WireReply>& reply);
// "13 MESSAGE_ILLEGAL": a response code with its RocketMQ name.
std::string code_text(std::int32_t code);

}  // namespace ferry::testing
