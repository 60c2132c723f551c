// RpcServer: listens on an address and serves remoting requests with registered processors
// (RpcPeer). Many concurrent connections; each has its own bounded write queue. The server can
// also call a connected client (e.g. NOTIFY_CONSUMER_IDS_CHANGED) with invoke_on().
//
// Bounds (RpcOptions): at most connections_max connections (one accepted over the cap is closed
// at once); a connection idle in both directions for idle_timeout is closed; a failed accept is
// retried after a back-off (accept_backoff_min doubling to accept_backoff_max), not at once. The
// log says each, at most one line per 10 s (LogLimiter) for refusals, accept errors, idle closes
// and connections closed by an error.
//
// Usage:
//   RpcServer server(rt, options);
//   server.register_processor(request_code::HEART_BEAT, ...);
//   FERRY_TRY(server.start(Endpoint{"127.0.0.1", 10911}));
//   ...
//   server.stop();   // stops listening and closes every connection
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>

#include "remoting/rpc/rpc_peer.h"
#include "runtime/log_limiter.h"

namespace ferry::remoting {

class RpcServer final : public RpcPeer {
 public:
  RpcServer(Runtime& rt, RpcOptions opts = {});
  ~RpcServer() override;

  // Binds and starts accepting. Errors: address_in_use, invalid_argument.
  Status start(const Endpoint& addr);
  // Stops accepting and closes all connections (pending calls on them fail). Idempotent.
  void stop();

  // The bound address (the real port when started on port 0). Valid after start().
  const Endpoint& local() const { return local_; }
  std::size_t connection_count() const { return channels_.size(); }
  // Connections closed at once because the server was at connections_max; closed for idling.
  std::uint64_t refused_connections() const { return refused_; }
  std::uint64_t idle_closed_connections() const { return idle_closed_; }
  // Open channels in accept order.
  std::vector<std::shared_ptr<Channel>> channels() const;

  // Hooks for the owner (e.g. the NameServer drops a broker when its connection closes).
  void on_channel_closed(std::function<void(const std::shared_ptr<Channel>&)> fn) {
    closed_hook_ = std::move(fn);
  }

 private:
  static Task<void> accept_loop(RpcServer* self);
  static Task<void> idle_loop(RpcServer* self, std::shared_ptr<bool> alive);
  void channel_closed(const std::shared_ptr<Channel>& ch, const Error& why) override;

  std::unique_ptr<Listener> listener_;
  Endpoint local_;
  std::map<std::uint64_t, std::shared_ptr<Channel>> channels_;
  std::function<void(const std::shared_ptr<Channel>&)> closed_hook_;
  bool stopped_ = false;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);  // for idle_loop, which may outlive stop()
  std::uint64_t refused_ = 0;
  std::uint64_t idle_closed_ = 0;
  std::uint64_t accept_errors_ = 0;
  LogLimiter refusal_log_;
  LogLimiter accept_error_log_;
  LogLimiter idle_log_;    // connections closed for idleness
  LogLimiter closed_log_;  // connections closed by an error (reset, malformed stream), by Errc
};

}  // namespace ferry::remoting
