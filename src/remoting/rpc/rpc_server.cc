#include "remoting/rpc/rpc_server.h"

#include <fmt/format.h>

#include <algorithm>

namespace ferry::remoting {

namespace {
RpcOptions server_options(RpcOptions opts) {
  opts.pause_reads_while_replies_back_up = true;
  return opts;
}
}  // namespace

RpcServer::RpcServer(Runtime& rt, RpcOptions opts) : RpcPeer(rt, server_options(opts)) {}

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
  if (opts_.idle_timeout > Duration::zero()) rt_.spawn(idle_loop(this, alive_), "idle " + local_.to_string());
  return {};
}

Task<void> RpcServer::accept_loop(RpcServer* self) {
  Duration backoff = Duration::zero();
  while (!self->stopped_) {
    auto conn = co_await self->listener_->accept();
    if (self->stopped_) co_return;
    if (!conn) {
      if (conn.error().is(Errc::closed)) co_return;
      // Out of descriptors, say: retrying at once would spin the loop. Back off, doubling.
      ++self->accept_errors_;
      backoff = backoff == Duration::zero() ? self->opts_.accept_backoff_min
                                            : std::min(2 * backoff, self->opts_.accept_backoff_max);
      if (auto held = self->accept_error_log_.admit(self->rt_.now(), static_cast<std::int64_t>(conn.error().code))) {
        self->rt_.log().warn("accept on {} failed ({} failures so far; next try in {} ms): {}{}", self->local_.to_string(),
                             self->accept_errors_, to_ms(backoff), conn.error().to_string(), held_back_note(*held));
      }
      co_await self->rt_.sleep(backoff);
      continue;
    }
    backoff = Duration::zero();
    if (self->channels_.size() >= self->opts_.connections_max) {
      ++self->refused_;
      if (auto held = self->refusal_log_.admit(self->rt_.now())) {
        self->rt_.log().warn("refusing connections on {}: {} open, the cap is {} (maxConnections); {} refused since "
                             "the last report, the latest from {}",
                             self->local_.to_string(), self->channels_.size(), self->opts_.connections_max, *held + 1,
                             (*conn)->peer().to_string());
      }
      (*conn)->close();
      continue;
    }
    auto ch = Channel::start(self->rt_, std::move(*conn), *self, self->opts_, self->next_channel_id());
    self->rt_.log().debug("connection from {}", ch->peer_text());
    self->channels_.emplace(ch->id(), ch);
  }
}

Task<void> RpcServer::idle_loop(RpcServer* self, std::shared_ptr<bool> alive) {
  const Duration timeout = self->opts_.idle_timeout;
  const Duration period = std::max<Duration>(timeout / 4, std::chrono::milliseconds(1));
  while (true) {
    co_await self->rt_.sleep(period);
    if (!*alive || self->stopped_) co_return;
    const MonoTime now = self->rt_.now();
    std::vector<std::shared_ptr<Channel>> idle;
    for (const auto& [id, ch] : self->channels_) {
      if (now - ch->last_active() >= timeout) idle.push_back(ch);
    }
    for (const std::shared_ptr<Channel>& ch : idle) {
      ++self->idle_closed_;
      if (auto held = self->idle_log_.admit(now)) {
        self->rt_.log().info("closing connection from {}: idle for {} ms (serverChannelMaxIdleTimeSeconds){}",
                             ch->peer_text(), to_ms(now - ch->last_active()), held_back_note(*held));
      }
      ch->close(fmt::format("idle for {} ms", to_ms(now - ch->last_active())));
    }
  }
}

void RpcServer::channel_closed(const std::shared_ptr<Channel>& ch, const Error& why) {
  if (channels_.erase(ch->id()) == 0) return;
  if (why.is(Errc::eof) || why.is(Errc::closed)) {
    rt_.log().debug("connection from {} closed: {}", ch->peer_text(), why.to_string());
  } else if (auto held = closed_log_.admit(rt_.now(), static_cast<std::int64_t>(why.code))) {
    rt_.log().info("connection from {} closed: {}{}", ch->peer_text(), why.to_string(), held_back_note(*held));
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
  *alive_ = false;
  if (listener_) listener_->close();
  // Detach first: closing must not call back into a server that is going away.
  auto open = std::move(channels_);
  channels_.clear();
  for (auto& [id, ch] : open) ch->detach();
}

}  // namespace ferry::remoting
