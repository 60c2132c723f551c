// RpcServer: listens on an address and serves remoting requests with registered processors
// (RpcPeer). Many concurrent connections; each has its own bounded write queue. The server can
// also call a connected client (e.g. NOTIFY_CONSUMER_IDS_CHANGED) with invoke_on().
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

#include "remoting/rpc/rpc_peer.h"

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
  // Open channels in accept order.
  std::vector<std::shared_ptr<Channel>> channels() const;

  // Hooks for the owner (e.g. the NameServer drops a broker when its connection closes).
  void on_channel_closed(std::function<void(const std::shared_ptr<Channel>&)> fn) {
    closed_hook_ = std::move(fn);
  }

 private:
  static Task<void> accept_loop(RpcServer* self);
  void channel_closed(const std::shared_ptr<Channel>& ch, const Error& why) override;

  std::unique_ptr<Listener> listener_;
  Endpoint local_;
  std::map<std::uint64_t, std::shared_ptr<Channel>> channels_;
  std::function<void(const std::shared_ptr<Channel>&)> closed_hook_;
  bool stopped_ = false;
};

}  // namespace ferry::remoting
