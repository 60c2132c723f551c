// libraft's C API (Debian's libraft-dev, canonical/raft 0.15), which declares no C linkage itself.
// Include this, never <raft.h> directly. What Ferry relies on and works around in this version:
// docs/controller.md, "The Raft engine".
#pragma once

extern "C" {
#include <raft.h>
}
