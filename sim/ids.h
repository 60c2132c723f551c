// Identifiers shared by the simulator's parts.
#pragma once

#include <compare>
#include <cstdint>
#include <limits>

namespace ferry::sim {

// A node of the world: an index in World's node table, stable for the world's life.
struct NodeId {
  std::uint32_t value = 0;
  auto operator<=>(const NodeId&) const = default;
};

// How a node goes down (World::crash). A host that goes silent while its process keeps running is
// not a crash: World::silence.
enum class CrashKind : std::uint8_t {
  // The process dies; the machine stays up. Its kernel closes its sockets (peers get a reset,
  // connects are refused) and keeps the page cache: unsynced writes are NOT lost (a later power
  // loss can still lose them).
  process_kill,
  // The machine loses power. Unsynced writes are lost or torn (DiskOptions); peers are told
  // nothing: their connections go quiet until their dead-peer timeout, or until the host is back
  // and answers with a reset; connects to it time out.
  power_loss,
};

const char* crash_kind_name(CrashKind kind);

// Events that belong to no node (network transit, scheduled restarts) carry kWorldNode.
inline constexpr NodeId kWorldNode{std::numeric_limits<std::uint32_t>::max()};

// Which node an event belongs to and which life of that node scheduled it. The world runs an
// event only while its node is up in the same incarnation; a crash makes every older event
// stale. Events of a paused node are deferred until it resumes.
struct EventTag {
  NodeId node = kWorldNode;
  std::uint64_t incarnation = 0;
};

}  // namespace ferry::sim
