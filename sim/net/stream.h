// The state of one simulated connection: two sides and two one-way pipes.
//
// pipe[i] carries bytes from side[i] to side[1 - i]. A pipe is a FIFO of segments, each with the
// virtual time it is due at the receiver (non-decreasing along the FIFO, so bytes never
// reorder). A pipe's `buffered` counts bytes on the wire plus bytes delivered but not yet read;
// write() waits while it is at NetworkOptions::pipe_buffer_bytes (back-pressure).
//
// SimNetwork moves segments (transport.cc); SimConnection reads and writes a side.
#pragma once

#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

#include "runtime/completion.h"
#include "runtime/network.h"
#include "sim/ids.h"

namespace ferry::sim {

struct Segment {
  enum class Kind : std::uint8_t { data, fin, rst };
  Kind kind = Kind::data;
  std::vector<std::uint8_t> bytes;
  MonoTime due{};
};

struct Side {
  NodeId node;
  Endpoint local;
  bool closed = false;    // close() was called, or the node died
  bool dead = false;      // the node crashed: nothing reaches this side any more
  bool silent = false;    // dead by power loss: the peer was told nothing (no FIN, no reset)
  bool timed_out = false; // the path was down for dead_peer_timeout: reads and writes fail
  bool fin_seen = false;  // the peer's FIN arrived, after all of its data
  bool rst_seen = false;  // a reset arrived, after the prefix of data that made it
  std::vector<std::uint8_t> readable;  // delivered bytes; [read_pos, end) are unread
  std::size_t read_pos = 0;
  std::optional<Completion<bool>> read_wait;   // the reader waiting for bytes or an error
  std::optional<Completion<bool>> write_wait;  // the writer waiting for buffer space

  std::size_t unread() const { return readable.size() - read_pos; }
};

struct Pipe {
  std::deque<Segment> wire;
  std::uint64_t buffered = 0;
  bool fin_queued = false;
  bool rst_queued = false;  // the pipe was reset: later writes into it vanish
  bool armed = false;       // a delivery event is scheduled for the head
  bool blocked = false;     // the head waits for the link to heal
  MonoTime last_due{};
};

struct ConnState {
  std::uint64_t id = 0;
  Side side[2];
  Pipe pipe[2];
  // Since when the path has been down (a cut link, an isolated or powered-off host, a silent
  // dead side); unset while it is up. See SimNetwork::refresh_paths.
  std::optional<MonoTime> down_since;

  // Some side may still read or write: neither closed nor told of a reset or a timeout.
  bool live() const {
    for (const Side& s : side) {
      if (!s.closed && !s.rst_seen && !s.timed_out) return true;
    }
    return false;
  }
};

// Wakes a waiting reader, writer or acceptor (through its executor; a no-op if none waits).
inline void wake(std::optional<Completion<bool>>& waiter) {
  if (!waiter) return;
  std::optional<Completion<bool>> w = std::move(waiter);
  waiter.reset();
  if (!w->completed()) w->complete(true);
}

}  // namespace ferry::sim
