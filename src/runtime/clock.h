// Clock: a node's view of time. The only way component code reads time.
#pragma once

#include "runtime/time.h"

namespace ferry {

class Clock {
 public:
  virtual ~Clock() = default;
  // Monotonic time of this node: never goes backwards, advances only while the node runs.
  // In simulation it is virtual time, possibly drifting per node.
  virtual MonoTime now() const = 0;
  // Wall-clock milliseconds since the Unix epoch. May jump; in simulation it may be skewed per
  // node. For timestamps stored in messages and file names, not for timeouts.
  virtual WallMs wall_ms() const = 0;
};

}  // namespace ferry
