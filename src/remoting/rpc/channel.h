// Channel: one connection speaking the remoting protocol, with a reader and a writer task.
//
// The reader decodes frames (FrameDecoder) and hands each command to the Handler. A malformed
// stream closes this channel only, with a log line naming the peer and the reason (limited by the
// handler's malformed_stream_log, which its channels share). The writer drains a bounded queue of
// frames in gather writes; send() waits while the queue is over
// RpcOptions::write_queue_bytes_max (back-pressure toward fast producers). The handler may hold
// the reader (Handler::holds_reading: a server whose replies back up), so that a peer that does
// not read its replies is held back by TCP.
//
// Lifetime: the reader and writer tasks own the channel (shared_ptr) and run on the node's
// executor; when the node dies they are destroyed with it. The Handler (a server or client)
// must call detach() before it is destroyed; after that the channel calls nothing on it.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/host_port.h"
#include "remoting/frame_decoder.h"
#include "remoting/remoting_command.h"
#include "remoting/rpc/rpc_options.h"
#include "runtime/log_limiter.h"
#include "runtime/runtime.h"
#include "runtime/wait_queue.h"

namespace ferry::remoting {

class Channel : public std::enable_shared_from_this<Channel> {
 public:
  class Handler {
   public:
    virtual ~Handler() = default;
    // A decoded command (request or reply) arrived on `ch`. Runs on the node's loop.
    virtual void on_command(const std::shared_ptr<Channel>& ch, RemotingCommand cmd) = 0;
    // The channel closed (peer closed, reset, malformed stream, local close). Called once.
    virtual void on_closed(const std::shared_ptr<Channel>& ch, const Error& why) = 0;
    // True while the channel should decode no further command (back-pressure); the handler
    // calls resume_reading() when that may have changed. Checked before each command.
    virtual bool holds_reading(const Channel& /*ch*/) const { return false; }
    // Limits the "malformed stream" lines of all the handler's channels: a peer that sends bad
    // frames on connection after connection is written up once per period, not per connection.
    virtual LogLimiter& malformed_stream_log() = 0;
  };

  // Wraps an established connection and starts its reader and writer tasks. `id` names the
  // channel within its handler (logs, maps); the handler allocates ids.
  static std::shared_ptr<Channel> start(Runtime& rt, std::unique_ptr<Connection> conn,
                                        Handler& handler, const RpcOptions& opts, std::uint64_t id);

  Channel(Runtime& rt, std::unique_ptr<Connection> conn, Handler& handler, const RpcOptions& opts,
          std::uint64_t id);
  Channel(const Channel&) = delete;
  Channel& operator=(const Channel&) = delete;
  ~Channel();

  // Queues `cmd` for sending, waiting while the write queue is full. Completes when the frame is
  // queued (not when it reaches the peer). Errors: closed (the channel is or became closed),
  // invalid_argument (the frame is larger than frame_bytes_max; the channel stays open).
  Task<Status> send(RemotingCommand cmd);

  // Completes once this connection holds less than write_queue_bytes_max for its peer
  // (held_bytes()) or is closed; at once when that is so already. A server awaits it before
  // building a reply (RpcPeer::serve), so a peer that does not read its replies makes the server
  // build no more of them than fit: replies, unlike requests, can be megabytes each.
  Task<void> wait_for_room();
  // Wakes a reader held by Handler::holds_reading() to check again.
  void resume_reading() { space_.notify_all(); }
  // Closes the connection now; queued frames are dropped. Idempotent.
  void close(const std::string& reason);
  // Forget the handler (it is going away); closes the channel too.
  void detach();

  bool is_open() const { return open_; }
  std::uint64_t id() const { return id_; }
  const Endpoint& peer() const { return peer_; }
  // "ip:port" of the peer, and the same as a HostPort (absent when it does not parse as one).
  const std::string& peer_text() const { return peer_text_; }
  const std::optional<HostPort>& peer_host_port() const { return peer_host_port_; }
  std::size_t queued_bytes() const { return queued_bytes_; }
  // Bytes of frames queued plus those of send() calls waiting for queue space: what this
  // connection holds in memory for its peer.
  std::size_t held_bytes() const { return queued_bytes_ + waiting_bytes_; }
  // When a byte last arrived or left (the channel's start before any did).
  MonoTime last_active() const { return last_active_; }

 private:
  struct OutFrame {
    std::vector<std::uint8_t> head;
    std::vector<std::uint8_t> body;
    std::vector<FileView> views;  // after body: pinned file ranges, written in place
    std::size_t bytes = 0;        // head, body and views
    std::size_t size() const { return bytes; }
  };
  static Task<void> read_loop(std::shared_ptr<Channel> self);
  static Task<void> write_loop(std::shared_ptr<Channel> self);
  // Writes `bufs` (kept alive by the caller) as several smaller writes, each buffer cut at
  // random points: what a kernel that takes part of a write each time does to the stream.
  static Task<Status> write_in_pieces(std::shared_ptr<Channel> self, std::span<const Bytes> bufs);
  void close_with(const Error& why);

  Runtime& rt_;
  std::unique_ptr<Connection> conn_;
  Handler* handler_;
  RpcOptions opts_;
  std::uint64_t id_;
  Endpoint peer_;
  std::string peer_text_;
  std::optional<HostPort> peer_host_port_;
  FrameDecoder decoder_;
  bool open_ = true;
  MonoTime last_active_;
  std::deque<OutFrame> queue_;
  std::size_t queued_bytes_ = 0;
  std::size_t waiting_bytes_ = 0;  // frames of send() calls waiting for space
  WaitQueue writable_;  // the writer waits here for frames
  WaitQueue space_;     // senders wait here for queue space
};

}  // namespace ferry::remoting
