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
