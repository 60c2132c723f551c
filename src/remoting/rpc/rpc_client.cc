#include "remoting/rpc/rpc_client.h"

#include <algorithm>

namespace ferry::remoting {

RpcClient::RpcClient(Runtime& rt, RpcOptions opts) : RpcPeer(rt, opts) {}

RpcClient::~RpcClient() { shutdown(); }

Task<Result<std::shared_ptr<Channel>>> RpcClient::channel(std::string addr, Duration timeout) {
  const std::shared_ptr<const bool> alive = alive_token();
  const MonoTime deadline = rt_.now() + timeout;
  for (;;) {
    if (!*alive) co_return Error(Errc::closed, "client destroyed");
    if (shut_down_) co_return Error(Errc::closed, "client is shut down");
    Slot& slot = slots_[addr];
    if (slot.channel && slot.channel->is_open()) co_return slot.channel;
    if (!slot.connecting) break;
    // Somebody else is connecting to this address: wait for their outcome, then re-check.
    if (rt_.now() >= deadline) co_return Error(Errc::timed_out, "connect to " + addr + " timed out");
    co_await slot.waiters->wait();
  }
  auto endpoint = Endpoint::parse(addr);
  if (!endpoint) co_return endpoint.error();
  Slot& slot = slots_[addr];
  slot.connecting = true;
  if (!slot.waiters) slot.waiters = std::make_unique<WaitQueue>(rt_.executor());
  const Duration connect_budget = std::min(timeout, opts_.connect_timeout);
  auto conn = co_await rt_.network().connect(*endpoint, connect_budget);
  if (!*alive) co_return Error(Errc::closed, "client destroyed while connecting to " + addr);
  Slot& after = slots_[addr];  // the map may have changed while connecting
  after.connecting = false;
  after.waiters->notify_all();
  if (!conn) {
    co_return Error(conn.error().code, "connect to " + addr + " failed: " + conn.error().to_string());
  }
  if (shut_down_) {
    (*conn)->close();
    co_return Error(Errc::closed, "client is shut down");
  }
  after.channel = Channel::start(rt_, std::move(*conn), *this, opts_, next_channel_id());
  rt_.log().debug("connected to {}", addr);
  co_return after.channel;
}

Task<Result<RemotingCommand>> RpcClient::invoke(std::string addr, RemotingCommand request, Duration timeout,
                                                ReplyFields fields) {
  const MonoTime start = rt_.now();
  const std::shared_ptr<const bool> alive = alive_token();
  auto ch = co_await channel(addr, timeout);
  if (!ch) co_return ch.error();
  if (!*alive) co_return Error(Errc::closed, "client destroyed");
  const Duration left = timeout - (rt_.now() - start);
  if (left <= Duration::zero()) {
    co_return Error(Errc::timed_out, "connecting to " + addr + " used the whole timeout");
  }
  co_return co_await invoke_on(*ch, std::move(request), left, fields);
}

Task<void> RpcClient::run_async(RpcClient* self, std::string addr, RemotingCommand request,
                                Duration timeout, Callback cb) {
  Result<RemotingCommand> outcome = co_await self->invoke(std::move(addr), std::move(request), timeout);
  cb(std::move(outcome));
}

void RpcClient::invoke_async(std::string addr, RemotingCommand request, Duration timeout, Callback cb) {
  rt_.spawn(run_async(this, std::move(addr), std::move(request), timeout, std::move(cb)), "invoke-async");
}

Task<Status> RpcClient::invoke_oneway(std::string addr, RemotingCommand request) {
  auto ch = co_await channel(addr, opts_.connect_timeout);
  if (!ch) co_return ch.error();
  co_return co_await invoke_oneway_on(*ch, std::move(request));
}

void RpcClient::close_channel(const std::string& addr) {
  auto it = slots_.find(addr);
  if (it == slots_.end() || !it->second.channel) return;
  it->second.channel->close("closed by the client");
}

bool RpcClient::connected(const std::string& addr) const {
  auto it = slots_.find(addr);
  return it != slots_.end() && it->second.channel && it->second.channel->is_open();
}

void RpcClient::channel_closed(const std::shared_ptr<Channel>& ch, const Error& why) {
  for (auto& [addr, slot] : slots_) {
    if (slot.channel == ch) {
      rt_.log().debug("connection to {} closed: {}", addr, why.to_string());
      slot.channel.reset();
      return;
    }
  }
}

void RpcClient::shutdown() {
  if (shut_down_) return;
  shut_down_ = true;
  for (auto& [addr, slot] : slots_) {
    if (slot.channel) {
      // Fail the calls on it first (on_closed), then forget the handler.
      slot.channel->close("client shut down");
      slot.channel.reset();
    }
    if (slot.waiters) slot.waiters->notify_all();
  }
}

}  // namespace ferry::remoting
