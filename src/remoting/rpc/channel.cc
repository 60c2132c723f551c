#include "remoting/rpc/channel.h"

#include "remoting/frame_codec.h"

namespace ferry::remoting {

std::shared_ptr<Channel> Channel::start(Runtime& rt, std::unique_ptr<Connection> conn,
                                        Handler& handler, const RpcOptions& opts, std::uint64_t id) {
  auto ch = std::make_shared<Channel>(rt, std::move(conn), handler, opts, id);
  rt.spawn(read_loop(ch), "channel-read " + ch->peer_text());
  rt.spawn(write_loop(ch), "channel-write " + ch->peer_text());
  return ch;
}

Channel::Channel(Runtime& rt, std::unique_ptr<Connection> conn, Handler& handler,
                 const RpcOptions& opts, std::uint64_t id)
    : rt_(rt),
      conn_(std::move(conn)),
      handler_(&handler),
      opts_(opts),
      id_(id),
      peer_(conn_->peer()),
      peer_text_(peer_.to_string()),
      decoder_(opts.frame_bytes_max, opts.raw_ext_fields_requests, opts.raw_ext_fields_replies, opts.header_bytes_max),
      last_active_(rt.now()),
      writable_(rt.executor()),
      space_(rt.executor()) {
  if (auto hp = HostPort::parse(peer_text_)) peer_host_port_ = *hp;
  FERRY_ASSERT(opts_.read_buffer_bytes > 0, "read buffer must not be empty");
  FERRY_ASSERT(opts_.write_queue_bytes_max > 0, "write queue must hold something");
}

Channel::~Channel() {
  if (conn_) conn_->close();
}

Task<Status> Channel::send(RemotingCommand cmd) {
  if (!open_) co_return Error(Errc::closed, "connection to " + peer_text() + " is closed");
  OutFrame frame;
  Status encoded = encode_frame_head(cmd, frame.head, opts_.frame_bytes_max);
  if (!encoded) co_return encoded;
  frame.bytes = frame.head.size() + cmd.body_size();
  frame.body = std::move(cmd.body);
  frame.views = std::move(cmd.body_views);
  // Back-pressure: wait while the queue is over its bound (a frame larger than the bound is
  // still accepted into an empty queue, so it cannot wait forever).
  if (open_ && queued_bytes_ > 0 && queued_bytes_ + frame.size() > opts_.write_queue_bytes_max) {
    waiting_bytes_ += frame.size();
    while (open_ && queued_bytes_ > 0 && queued_bytes_ + frame.size() > opts_.write_queue_bytes_max) {
      co_await space_.wait();
    }
    waiting_bytes_ -= frame.size();
  }
  if (!open_) co_return Error(Errc::closed, "connection to " + peer_text() + " closed while sending");
  queued_bytes_ += frame.size();
  queue_.push_back(std::move(frame));
  writable_.notify_one();
  co_return Status{};
}

Task<void> Channel::wait_for_room() {
  while (open_ && held_bytes() >= opts_.write_queue_bytes_max) co_await space_.wait();
}

Task<void> Channel::read_loop(std::shared_ptr<Channel> self) {
  while (self->open_) {
    // Back-pressure from the handler (a peer that does not read its replies): read nothing more.
    while (self->open_ && self->handler_ && self->handler_->holds_reading(*self)) co_await self->space_.wait();
    if (!self->open_) co_return;
    // Read straight into the decoder's buffer (no copy from a read buffer into it). Only this
    // loop touches the decoder, so the span stays valid while the read is pending.
    Result<MutableBytes> room = self->decoder_.space(self->opts_.read_buffer_bytes);
    if (!room) {
      self->close_with(room.error());
      co_return;
    }
    MutableBytes into = *room;
    // buggify: a short read (a stream hands over any prefix of what arrived; frames split).
    if (FERRY_BUGGIFY(self->rt_)) {
      into = into.first(static_cast<std::size_t>(self->rt_.random().between(1, std::min<std::int64_t>(64, into.size()))));
    }
    Result<std::size_t> n = co_await self->conn_->read_some(into);
    if (!self->open_) co_return;
    if (!n) {
      self->close_with(n.error());
      co_return;
    }
    self->last_active_ = self->rt_.now();
    self->decoder_.commit(*n);
    while (self->open_) {
      while (self->open_ && self->handler_ && self->handler_->holds_reading(*self)) co_await self->space_.wait();
      if (!self->open_) co_return;
      auto next = self->decoder_.next();
      if (!next) {
        const auto held = self->handler_ ? self->handler_->malformed_stream_log().admit(
                                               self->rt_.now(), static_cast<std::int64_t>(next.error().code))
                                         : std::optional<std::uint64_t>(0);
        if (held) {
          self->rt_.log().warn("closing connection from {}: malformed stream: {}{}", self->peer_text(),
                               next.error().to_string(), held_back_note(*held));
        }
        self->close_with(next.error());
        co_return;
      }
      if (!next->has_value()) break;
      if (self->handler_) self->handler_->on_command(self, std::move(**next));
    }
  }
}

Task<void> Channel::write_loop(std::shared_ptr<Channel> self) {
  std::vector<Bytes> bufs;
  std::deque<OutFrame> batch;
  for (;;) {
    while (self->open_ && self->queue_.empty()) co_await self->writable_.wait();
    if (!self->open_) co_return;
    // Take frames up to the batch bound (at least one).
    std::size_t batch_bytes = 0;
    batch.clear();
    bufs.clear();
    while (!self->queue_.empty() &&
           (batch.empty() || batch_bytes + self->queue_.front().size() <= self->opts_.write_batch_bytes_max)) {
      batch_bytes += self->queue_.front().size();
      batch.push_back(std::move(self->queue_.front()));
      self->queue_.pop_front();
    }
    for (const OutFrame& f : batch) {
      bufs.emplace_back(f.head);
      if (!f.body.empty()) bufs.emplace_back(f.body);
      for (const FileView& v : f.views) bufs.push_back(v.bytes());
    }
    Status written;
    // buggify: the batch goes out as several small writes instead of one gather write.
    if (FERRY_BUGGIFY(self->rt_)) {
      written = co_await write_in_pieces(self, std::span<const Bytes>(bufs));
    } else {
      written = co_await self->conn_->write(std::span<const Bytes>(bufs));
    }
    FERRY_ASSERT_LE(batch_bytes, self->queued_bytes_);
    self->queued_bytes_ -= batch_bytes;
    self->last_active_ = self->rt_.now();
    self->space_.notify_all();
    if (!written) {
      self->close_with(written.error());
      co_return;
    }
  }
}

Task<Status> Channel::write_in_pieces(std::shared_ptr<Channel> self, std::span<const Bytes> bufs) {
  for (Bytes rest : bufs) {
    while (!rest.empty()) {
      // A cut point drawn uniformly: about ln(size) pieces per buffer.
      const auto n = static_cast<std::size_t>(self->rt_.random().between(1, static_cast<std::int64_t>(rest.size())));
      Status st = co_await self->conn_->write(rest.first(n));
      if (!st) co_return st;
      rest = rest.subspan(n);
    }
  }
  co_return Status{};
}

void Channel::close(const std::string& reason) { close_with(Error(Errc::closed, reason)); }

void Channel::detach() {
  handler_ = nullptr;
  close("handler gone");
}

void Channel::close_with(const Error& why) {
  if (!open_) return;
  open_ = false;
  conn_->close();
  for (const OutFrame& f : queue_) queued_bytes_ -= f.size();  // a batch being written keeps its share
  queue_.clear();
  writable_.notify_all();
  space_.notify_all();
  if (handler_) {
    Handler* h = std::exchange(handler_, nullptr);
    h->on_closed(shared_from_this(), why);
  }
}

}  // namespace ferry::remoting
