#include "sim/net/connection.h"

#include <algorithm>
#include <cstring>

#include "sim/net/network.h"

namespace ferry::sim {

SimConnection::SimConnection(SimNetwork& net, std::shared_ptr<ConnState> state, int side)
    : net_(net), state_(std::move(state)), side_(side) {
  FERRY_ASSERT(side_ == 0 || side_ == 1, "side {}", side_);
}

bool SimConnection::is_open() const {
  const Side& s = state_->side[side_];
  return !s.closed && !s.rst_seen && !s.timed_out;
}

void SimConnection::close() { net_.close_side(state_, side_); }

Task<Result<std::size_t>> SimConnection::read_some(MutableBytes buf) {
  FERRY_ASSERT(!buf.empty(), "read_some into an empty buffer");
  for (;;) {
    Side& s = me();
    if (s.closed) co_return Error(Errc::closed, "read on a closed connection");
    if (s.unread() > 0) {
      const std::size_t n = std::min(buf.size(), s.unread());
      std::memcpy(buf.data(), s.readable.data() + s.read_pos, n);
      s.read_pos += n;
      if (s.read_pos == s.readable.size()) {
        s.readable.clear();
        s.read_pos = 0;
      }
      net_.consumed(state_, side_, n);
      co_return n;
    }
    if (s.fin_seen) co_return Error(Errc::eof, peer().to_string() + " closed the connection");
    if (s.rst_seen) co_return Error(Errc::reset, "connection to " + peer().to_string() + " was reset");
    if (s.timed_out) co_return Error(Errc::timed_out, "no sign of " + peer().to_string() + " for the dead-peer timeout");
    FERRY_ASSERT(!s.read_wait || s.read_wait->abandoned(), "two reads in progress on {}", local().to_string());
    Completion<bool> ready(net_.executor_of(s.node));
    s.read_wait = ready;
    (void)co_await ready.wait();
  }
}

Task<Status> SimConnection::write(std::span<const Bytes> bufs) {
  std::size_t index = 0;
  std::size_t offset = 0;
  const std::uint64_t capacity = net_.options().pipe_buffer_bytes;
  for (;;) {
    while (index < bufs.size() && offset == bufs[index].size()) {
      ++index;
      offset = 0;
    }
    if (index == bufs.size()) co_return Status();
    Side& s = me();
    if (s.rst_seen) co_return Error(Errc::reset, "connection to " + peer().to_string() + " was reset");
    if (s.timed_out) co_return Error(Errc::timed_out, "no sign of " + peer().to_string() + " for the dead-peer timeout");
    if (s.closed) co_return Error(Errc::closed, "write on a closed connection");
    Pipe& out = state_->pipe[side_];
    if (out.rst_queued) co_return Status();  // reset on the way: the bytes vanish, as on a real wire
    const std::uint64_t space = out.buffered >= capacity ? 0 : capacity - out.buffered;
    if (space == 0) {
      FERRY_ASSERT(!s.write_wait || s.write_wait->abandoned(), "two writes in progress on {}", local().to_string());
      Completion<bool> room(net_.executor_of(s.node));
      s.write_wait = room;
      (void)co_await room.wait();
      continue;
    }
    // Gather as much as fits into one segment.
    std::vector<std::uint8_t> segment;
    while (index < bufs.size() && segment.size() < space) {
      const Bytes b = bufs[index];
      const std::size_t n = std::min<std::size_t>(b.size() - offset, space - segment.size());
      segment.insert(segment.end(), b.begin() + static_cast<std::ptrdiff_t>(offset),
                     b.begin() + static_cast<std::ptrdiff_t>(offset + n));
      offset += n;
      if (offset == b.size()) {
        ++index;
        offset = 0;
      }
    }
    net_.send(state_, side_, std::move(segment));
  }
}

}  // namespace ferry::sim
