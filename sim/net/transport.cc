// SimNetwork's transport: segments on the wire, delivery, back-pressure, close and reset.
#include "sim/net/network.h"

#include "common/crc.h"
#include "sim/node.h"
#include "sim/world.h"

namespace ferry::sim {

void SimNetwork::send(const std::shared_ptr<ConnState>& c, int s, std::vector<std::uint8_t> bytes) {
  FERRY_ASSERT(!bytes.empty(), "empty segment");
  Pipe& p = c->pipe[s];
  FERRY_ASSERT(!p.fin_queued && !p.rst_queued, "send on a finished pipe of connection {}", c->id);
  p.buffered += bytes.size();
  Segment seg;
  seg.bytes = std::move(bytes);
  enqueue(c, s, std::move(seg));
}

void SimNetwork::enqueue(const std::shared_ptr<ConnState>& c, int s, Segment seg) {
  Pipe& p = c->pipe[s];
  seg.due = std::max(world_.now() + latency(c->side[s].node, c->side[1 - s].node), p.last_due);
  p.last_due = seg.due;
  p.wire.push_back(std::move(seg));
  arm(c, s, world_.now());
}

void SimNetwork::arm(const std::shared_ptr<ConnState>& c, int s, MonoTime not_before) {
  Pipe& p = c->pipe[s];
  if (p.armed || p.blocked || p.wire.empty()) return;
  p.armed = true;
  const MonoTime when = std::max({p.wire.front().due, not_before, world_.now()});
  world_.schedule(when, EventTag{}, [this, c, s] { deliver(c, s); });
}

void SimNetwork::deliver(const std::shared_ptr<ConnState>& c, int s) {
  Pipe& p = c->pipe[s];
  p.armed = false;
  if (!link_up(c->side[s].node, c->side[1 - s].node)) {
    // Held at the head until heal: nothing behind it may overtake.
    p.blocked = true;
    blocked_.insert({c->id, s});
    return;
  }
  while (!p.wire.empty() && p.wire.front().due <= world_.now()) {
    Segment seg = std::move(p.wire.front());
    p.wire.pop_front();
    land(c, s, seg);
  }
  arm(c, s, world_.now());
}

void SimNetwork::land(const std::shared_ptr<ConnState>& c, int s, Segment& seg) {
  Side& to = c->side[1 - s];
  Pipe& p = c->pipe[s];
  ++stats_.segments_delivered;
  switch (seg.kind) {
    case Segment::Kind::data:
      if (to.closed) {
        // Nobody will read these bytes: free the space, and (like TCP) answer a live closed
        // side's unexpected data with a reset.
        p.buffered -= seg.bytes.size();
        wake(c->side[s].write_wait);
        if (!to.dead) reset_pipe(c, 1 - s);
        return;
      }
      stats_.bytes_delivered += seg.bytes.size();
      // What arrives is part of the run's state: two runs that schedule alike but carry other
      // bytes must hash apart.
      world_.trace().mix((c->id << 1 | static_cast<std::uint64_t>(s)) ^
                         (std::uint64_t{crc32_update(0, Bytes(seg.bytes.data(), seg.bytes.size()))} << 32));
      to.readable.insert(to.readable.end(), seg.bytes.begin(), seg.bytes.end());
      wake(to.read_wait);
      return;
    case Segment::Kind::fin:
      to.fin_seen = true;
      wake(to.read_wait);
      return;
    case Segment::Kind::rst:
      to.rst_seen = true;
      wake(to.read_wait);
      wake(to.write_wait);
      return;
  }
}

void SimNetwork::consumed(const std::shared_ptr<ConnState>& c, int s, std::size_t n) {
  Pipe& in = c->pipe[1 - s];
  FERRY_ASSERT_GE(in.buffered, n);
  in.buffered -= n;
  wake(c->side[1 - s].write_wait);
}

void SimNetwork::drop_wire(const std::shared_ptr<ConnState>& c, int s, std::size_t keep) {
  Pipe& p = c->pipe[s];
  while (p.wire.size() > keep) {
    const Segment& seg = p.wire.back();
    if (seg.kind == Segment::Kind::data) p.buffered -= seg.bytes.size();
    p.wire.pop_back();
  }
  wake(c->side[s].write_wait);
}

void SimNetwork::reset_pipe(const std::shared_ptr<ConnState>& c, int s) {
  Pipe& p = c->pipe[s];
  if (p.rst_queued) return;
  p.rst_queued = true;
  if (c->side[1 - s].dead) {
    drop_wire(c, s, 0);
    return;
  }
  std::size_t keep = 0;
  if (!p.wire.empty() && random_.chance_ppm(options_.reset_keeps_prefix_ppm)) keep = random_.below(p.wire.size() + 1);
  drop_wire(c, s, keep);
  Segment rst;
  rst.kind = Segment::Kind::rst;
  enqueue(c, s, std::move(rst));
}

void SimNetwork::reset_conn(const std::shared_ptr<ConnState>& c) {
  if (c->side[0].closed && c->side[1].closed) return;
  ++stats_.resets;
  reset_pipe(c, 0);
  reset_pipe(c, 1);
}

void SimNetwork::close_side(const std::shared_ptr<ConnState>& c, int s) {
  Side& me = c->side[s];
  if (me.closed) return;
  if (!world_.node(me.node).up()) {  // closed by a crashing node's destructors
    if (world_.node(me.node).dying_silently()) {
      silence_side(c, s);
    } else {
      abort_side(c, s);
    }
    return;
  }
  me.closed = true;
  // Unread bytes are discarded; their space returns to the peer's writer.
  consumed(c, s, me.unread());
  me.readable.clear();
  me.read_pos = 0;
  Pipe& out = c->pipe[s];
  if (!out.fin_queued && !out.rst_queued) {
    out.fin_queued = true;
    Segment fin;
    fin.kind = Segment::Kind::fin;
    enqueue(c, s, std::move(fin));
  }
  wake(me.read_wait);
  wake(me.write_wait);
}

void SimNetwork::silence_side(const std::shared_ptr<ConnState>& c, int s) {
  Side& me = c->side[s];
  if (me.dead) return;
  me.dead = true;
  me.closed = true;
  me.silent = true;
  if (me.unread() > 0) consumed(c, s, me.unread());
  me.readable.clear();
  me.read_pos = 0;
  wake(me.read_wait);
  wake(me.write_wait);
  // What the peer sends now lands on a dead side and is dropped without an answer (land()).
}

void SimNetwork::abort_side(const std::shared_ptr<ConnState>& c, int s) {
  Side& me = c->side[s];
  if (me.dead) return;
  const bool was_closed = me.closed;
  me.dead = true;
  me.closed = true;
  if (me.unread() > 0) consumed(c, s, me.unread());
  me.readable.clear();
  me.read_pos = 0;
  wake(me.read_wait);
  wake(me.write_wait);
  // Nothing reaches a dead side; the peer hears a reset unless this side had closed in order.
  c->pipe[1 - s].rst_queued = true;
  drop_wire(c, 1 - s, 0);
  if (!was_closed && !c->side[1 - s].closed) {
    ++stats_.resets;
    reset_pipe(c, s);
  }
}

}  // namespace ferry::sim
