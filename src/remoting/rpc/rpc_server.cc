#include "remoting/rpc/rpc_server.h"

namespace ferry::remoting {

RpcServer::RpcServer(Runtime& rt, RpcOptions opts) : RpcPeer(rt, opts) {}

RpcServer::~RpcServer() {
  stop();
}

Status RpcServer::start(const Endpoint& addr) {
  FERRY_ASSERT(!listener_, "RpcServer started twice");
  auto listener = rt_.network().listen(addr);
  if (!listener) {
    return Error(listener.error().code, "listen on " + addr.to_string() + ": " + listener.error().to_string());
  }
  listener_ = std::move(*listener);
  local_ = listener_->local();
  rt_.log().info("remoting server listening on {}", local_.to_string());
  rt_.spawn(accept_loop(this), "accept " + local_.to_string());
  return {};
}

Task<void> RpcServer::accept_loop(RpcServer* self) {
  while (!self->stopped_) {
    auto conn = co_await self->listener_->accept();
    if (self->stopped_) co_return;
    if (!conn) {
      if (conn.error().is(Errc::closed)) co_return;
      self->rt_.log().warn("accept on {} failed: {}", self->local_.to_string(), conn.error().to_string());
      continue;
    }
    auto ch = Channel::start(self->rt_, std::move(*conn), *self, self->opts_, self->next_channel_id());
    self->rt_.log().debug("connection from {}", ch->peer_text());
    self->channels_.emplace(ch->id(), ch);
  }
}

void RpcServer::channel_closed(const std::shared_ptr<Channel>& ch, const Error& why) {
  if (channels_.erase(ch->id()) == 0) return;
  if (why.is(Errc::eof) || why.is(Errc::closed)) {
    rt_.log().debug("connection from {} closed: {}", ch->peer_text(), why.to_string());
  } else {
    rt_.log().info("connection from {} closed: {}", ch->peer_text(), why.to_string());
  }
  if (closed_hook_) closed_hook_(ch);
}

std::vector<std::shared_ptr<Channel>> RpcServer::channels() const {
  std::vector<std::shared_ptr<Channel>> out;
  out.reserve(channels_.size());
  for (const auto& [id, ch] : channels_) out.push_back(ch);
  return out;
}

void RpcServer::stop() {
  if (stopped_) return;
  stopped_ = true;
  if (listener_) listener_->close();
  // Detach first: closing must not call back into a server that is going away.
  auto open = std::move(channels_);
  channels_.clear();
  for (auto& [id, ch] : open) ch->detach();
}

}  // namespace ferry::remoting
