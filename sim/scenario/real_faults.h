// RealFaults: what a fault action may do to a cluster of real processes (`mqsim run --real`,
// sim/real/real_runner.h), the counterpart of FaultContext for simulated ones. A fault action
// that Linux can do has a real_apply (and a real_undo where it has an undo) in its
// FaultActionSpec (fault_registry.h), written beside its simulated apply; one that it cannot
// says why in real_refusal.
//
// Targets are node names (role targets such as "master:broker-a" are resolved by the runner
// first). Errors are the scenario's mistakes or the runner's (an unknown node, a slave that is
// not running) or a host command that failed, named.
#pragma once

#include <optional>
#include <string>

#include "runtime/result.h"
#include "runtime/time.h"

namespace ferry::sim::scenario {

class RealFaults {
 public:
  virtual ~RealFaults() = default;
  // A process kill (SIGKILL; a client's app is destroyed with its connections): the page cache
  // keeps what was written. A node that is down already is left down.
  virtual Status kill(const std::string& node) = 0;
  // Starts the node again `delay` from now (a crash's downtime); a node that is up then is left.
  virtual Status start_after(const std::string& node, Duration delay) = 0;
  // Empties the node's data folder (its store); the node must be down.
  virtual Status wipe(const std::string& node) = 0;
  // SIGSTOP / SIGCONT (a client's loop blocked / let go). A node that is not running is left.
  virtual Status pause(const std::string& node) = 0;
  virtual Status resume(const std::string& node) = 0;
  // Packets from `from` to `to` dropped, or let through again (sim/real/testbed.h).
  virtual Status cut(const std::string& from, const std::string& to) = 0;
  virtual Status uncut(const std::string& from, const std::string& to) = 0;
  // Every byte from `from` to `to` late by `extra` (0: no longer), through the runner's relay
  // (sim/real/delay_relay.h); invalid_argument for a pair the relay was not set up for.
  virtual Status clog(const std::string& from, const std::string& to, Duration extra) = 0;
  // The node's wall clock jumps by `skew` (kept, across restarts too); its monotonic clock does
  // not move. A daemon's through libfaketime, an app's through its runtime.
  virtual Status skew_clock(const std::string& node, Duration skew) = 0;
  // The node's disk (a size-limited filesystem the runner gave it) is full but `free_bytes`; or
  // its first size again.
  virtual Status fill_disk(const std::string& node, std::int64_t free_bytes) = 0;
  virtual Status restore_disk(const std::string& node) = 0;
  // Every packet to and from the node dropped, or let through again.
  virtual Status darken(const std::string& node) = 0;
  virtual Status undarken(const std::string& node) = 0;
  // The operator's commands, as mqadmin sends them: promoteSlave (Ferry's code; `role` empty for
  // the group's configured master role; the group's old master is retired, the heal leaves it
  // down) and updateTopic on the master `broker` (UPDATE_AND_CREATE_TOPIC, read and write queues).
  virtual Status promote_slave(const std::string& node, const std::string& role) = 0;
  virtual Status update_topic(const std::string& broker, const std::string& topic, std::int32_t queues) = 0;
  // Every link healed and unclogged, every disk its first size, every paused node resumed, every
  // down node (not retired) started.
  virtual Status heal_all() = 0;
};

}  // namespace ferry::sim::scenario
