// SimNode: one simulated process — its Runtime (clock, timers, executor, network, disk, random,
// log) and its lifecycle (start, crash, pause, resume). World drives the lifecycle; component code
// sees only the Runtime.
//
// Executor::post and Timers put events into the world's heap tagged with (node id, incarnation):
// post at the current virtual time, timers at the world time when this node's (drifting) clock
// reaches the deadline. Events of an older incarnation never run; a paused node's events wait
// in order until resume.
//
// Crash order: the node's TaskSet is destroyed first (no frame of the old life is ever resumed),
// then its component object, then its volatile state: listeners closed, pending timers dropped,
// connections reset for their peers (process kill) or left silent (power loss), unsynced disk
// data kept in the page cache (process kill) or lost, possibly torn (power loss). The disk object
// itself survives for the next incarnation.
//
// Stalls: stall(d) blocks the node's loop for d of virtual time (a page fault on a cold mapping,
// a long GC-like pause): its events due meanwhile run after, in their order.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/log.h"
#include "runtime/runtime.h"
#include "sim/clock.h"
#include "sim/disk/disk.h"
#include "sim/disk/file_system.h"
#include "sim/ids.h"
#include "sim/net/node_network.h"
#include "sim/process.h"

namespace ferry::sim {

class World;

class SimNode;

class SimExecutor final : public Executor {
 public:
  explicit SimExecutor(SimNode& node) : node_(node) {}
  void post(std::function<void()> fn) override;

 private:
  SimNode& node_;
};

class SimTimers final : public Timers {
 public:
  explicit SimTimers(SimNode& node) : node_(node) {}
  TimerId schedule(Duration delay, std::function<void()> fn) override;
  bool cancel(TimerId id) override;
  // Crash: forget every pending timer.
  void drop_all();
  std::size_t pending() const { return pending_.size(); }

 private:
  SimNode& node_;
  std::uint64_t next_seq_ = 0;
  std::map<std::uint64_t, TimerId> pending_;  // our seq -> the world event (for cancel)
};

class SimNode final : public Runtime {
 public:
  enum class State : std::uint8_t { down, running, paused, crashing };

  SimNode(World& world, NodeId id, std::string name, std::string host, NodeFactory factory,
          Random random, std::int64_t skew_ms, std::int64_t drift_ppm);
  ~SimNode() override;

  // ---- Runtime ---------------------------------------------------------------------------
  const std::string& node_name() const override { return name_; }
  Clock& clock() override { return clock_; }
  Timers& timers() override { return timers_; }
  Executor& executor() override { return executor_; }
  Network& network() override { return network_; }
  FileSystem& fs() override { return fs_; }
  Random& random() override { return random_; }
  spdlog::logger& log() override { return *logger_; }
  Task<void> offload(std::function<void()> fn) override;
  bool buggify(const char* file, int line) override;

  // ---- simulator side --------------------------------------------------------------------
  NodeId id() const { return id_; }
  const std::string& host() const { return host_; }
  State state() const { return state_; }
  bool up() const { return state_ == State::running || state_ == State::paused; }
  std::uint64_t incarnation() const { return incarnation_; }
  // How many times the node was started: each start is a new life (a crash bumps incarnation()
  // too, so incarnations do not count lives).
  std::uint64_t starts() const { return starts_; }
  EventTag tag() const { return EventTag{id_, incarnation_}; }
  World& world() { return world_; }
  SimClock& sim_clock() { return clock_; }
  SimDisk& disk() { return disk_; }
  NodeProcess* process() { return process_.get(); }
  std::size_t deferred_events() const { return deferred_.size(); }

  // Lifecycle, called by World.
  void start();
  void crash(CrashKind kind, bool quiet = false);  // quiet: the world is being torn down
  // During crash(): the node's own destructors close connections; under a power loss they must
  // send nothing.
  bool dying_silently() const { return state_ == State::crashing && crash_kind_ == CrashKind::power_loss; }
  // Blocks the node's loop until now + d (no-op for d <= 0 or while a longer stall runs).
  void stall(Duration d);
  MonoTime busy_until() const { return busy_until_; }
  void pause();
  void resume();
  // A paused node's event waits here until resume().
  void defer(std::function<void()> fn) { deferred_.push_back(std::move(fn)); }

 private:
  World& world_;
  NodeId id_;
  std::string name_;
  std::string host_;
  NodeFactory factory_;
  State state_ = State::down;
  CrashKind crash_kind_ = CrashKind::power_loss;
  std::uint64_t incarnation_ = 0;
  std::uint64_t starts_ = 0;
  MonoTime busy_until_{};

  SimClock clock_;
  SimExecutor executor_;
  SimTimers timers_;
  Random random_;
  std::shared_ptr<ClockedLogger> logger_;
  NodeNetwork network_;
  SimDisk disk_;
  SimFileSystem fs_;
  std::unique_ptr<NodeProcess> process_;
  std::vector<std::function<void()>> deferred_;
};

}  // namespace ferry::sim
