// RawConn: one plain blocking TCP connection from the test process to a daemon on 127.0.0.1,
// for the limit tests that need what RpcClient hides: a connection that never speaks, one that
// never reads its replies, and telling "the server closed it" apart from "it is still open".
// Plus what /proc says about a daemon: its anonymous memory and its open descriptors.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "remoting/remoting_command.h"

namespace ferry::daemons_test {

class RawConn {
 public:
  // Connects at once; valid() is false when connect() failed (errno text in error()).
  explicit RawConn(std::uint16_t port);
  ~RawConn();
  RawConn(RawConn&& o) noexcept;
  RawConn& operator=(RawConn&&) = delete;
  RawConn(const RawConn&) = delete;
  RawConn& operator=(const RawConn&) = delete;

  bool valid() const { return fd_ >= 0; }
  const std::string& error() const { return error_; }
  void close();

  // Writes the whole frame of `cmd`; false (and error()) when the write failed or did not finish
  // within `timeout` (the peer stopped reading and the buffers are full).
  bool send(const remoting::RemotingCommand& cmd, std::chrono::milliseconds timeout = std::chrono::seconds(5));
  // The next whole frame, or nullopt (and error()) on EOF, a reset, a bad frame, or nothing
  // complete within `timeout`.
  std::optional<remoting::RemotingCommand> receive(std::chrono::milliseconds timeout);
  // Sends `cmd` (with the next opaque) and waits for the reply with that opaque, skipping other
  // frames; nullopt (error() says why) when the write, the read or the wait failed.
  std::optional<remoting::RemotingCommand> request(remoting::RemotingCommand cmd,
                                                   std::chrono::milliseconds timeout = std::chrono::seconds(5));
  // request()'s reply code, or -1.
  int call(remoting::RemotingCommand cmd, std::chrono::milliseconds timeout = std::chrono::seconds(5));
  // True once the peer closed the connection (a read returns EOF or a reset) within `timeout`;
  // false while it stays open. Discards whatever the peer sent meanwhile.
  bool closed_by_peer(std::chrono::milliseconds timeout);

 private:
  int fd_ = -1;
  std::int32_t next_opaque_ = 1;
  std::string error_;
};

// From /proc/PID/status: RssAnon in KiB (anonymous resident memory: the heap, not the mapped
// CommitLog's file pages), or -1 when it cannot be read.
std::int64_t rss_anon_kib(pid_t pid);
// Entries of /proc/PID/fd (the process's open descriptors), or -1.
std::int64_t open_fd_count(pid_t pid);
// How many times `needle` occurs in `text`.
std::size_t count_of(const std::string& text, const std::string& needle);

}  // namespace ferry::daemons_test
