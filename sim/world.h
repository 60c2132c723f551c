// World: a whole simulated cluster in one thread, in virtual time, from one seed.
//
// The world owns the nodes, one event heap ordered by (virtual time, sequence) (a TimerQueue),
// one seeded PRNG forked per purpose, the simulated network (net()) and each node's disk. Every
// scheduled and every run event, and every random draw, is mixed into a rolling trace hash: the
// same seed and the same driving code give the same trace_hash(), which is how determinism is
// checked.
//
// Nodes: add_node(name, factory) creates a node with a simulated IP ("127.0.0.<10+id>") and
// starts it: the factory (if any) builds the node's component from its Runtime&. crash(id, kind)
// destroys the node's tasks, then its component, then its volatile state; the kind (ids.h) says
// what survives: a process kill keeps the page cache and resets the peers' connections, a power
// loss loses unsynced data and tells the peers nothing. start() builds a new incarnation on the
// same disk. silence() makes a running host go dark (no packets either way, no resets). pause()
// defers the node's events until resume().
//
// Running: nothing runs until one of the run_* methods is called; they return when their goal is
// reached, when the time limit passes (virtual time then equals the limit), or when no event is
// left (a deadlock: reported, never a hang). Single-threaded; nothing here is thread-safe.
#pragma once

#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "runtime/log.h"
#include "runtime/random.h"
#include "runtime/runtime.h"
#include "runtime/task.h"
#include "runtime/timer_queue.h"
#include "sim/buggify.h"
#include "sim/ids.h"
#include "sim/options.h"
#include "sim/process.h"

namespace ferry::sim {

class SimNode;
class SimNetwork;

enum class Stop : std::uint8_t {
  satisfied,   // the goal was reached
  time_limit,  // virtual time reached the limit first
  deadlock,    // no event left while the goal was not reached
  destroyed,   // run_task: the task was destroyed (its node crashed or stopped)
};

struct RunReport {
  Stop stop = Stop::satisfied;
  MonoTime at{};            // virtual time when the run returned
  std::uint64_t events = 0;  // events run during this call
  std::string message;       // empty when satisfied; says what was left otherwise
  bool ok() const { return stop == Stop::satisfied; }
};

// What run_task returns: the report and, when it finished, the task's value (std::monostate for
// Task<void>).
template <typename T>
struct TaskRun {
  using Value = std::conditional_t<std::is_void_v<T>, std::monostate, T>;
  RunReport report;
  std::optional<Value> value;
  bool ok() const { return report.ok(); }
};

class World {
 public:
  // Every node's logger writes to `log`'s sinks at its level (runtime/log.h): the world owns
  // where its nodes log, so two worlds in one process never share a capture or a clock.
  explicit World(WorldOptions options, LogSettings log = default_log_settings());
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  // ---- nodes -----------------------------------------------------------------------------
  // Creates and starts a node. Names must be unique. Without a factory the node is a bare
  // runtime (tests drive it with run_task).
  NodeId add_node(std::string name, NodeFactory factory = {});
  SimNode& node(NodeId id);
  const SimNode& node(NodeId id) const;
  std::size_t node_count() const { return nodes_.size(); }
  std::optional<NodeId> find_node(const std::string& name) const;

  void start(NodeId id);  // a down node: new incarnation, factory runs again
  // Called after every start of a node (its first at add_node() too), once its factory has run,
  // with the node and its incarnation (1 for the first start). An observer (a History recorder)
  // must only read. One observer; nullptr clears it.
  using StartObserver = std::function<void(NodeId, std::uint64_t incarnation)>;
  void set_start_observer(StartObserver observer) { start_observer_ = std::move(observer); }
  void notify_started(NodeId id, std::uint64_t incarnation) {
    if (start_observer_) start_observer_(id, incarnation);
  }
  void crash(NodeId id, CrashKind kind);  // a running or paused node; no-op when down
  void kill(NodeId id) { crash(id, CrashKind::process_kill); }
  void power_off(NodeId id) { crash(id, CrashKind::power_loss); }
  // Crashes the node now (if up) and starts it after `delay`, optionally on a wiped disk.
  void restart(NodeId id, CrashKind kind, Duration delay = 0ns, bool wipe_disk = false);
  // The host goes silent: its process runs on, but the network carries none of its packets in
  // either direction and sends no resets (a hung NIC or kernel, a cable pulled). Its connections
  // fail after the dead-peer timeout on both sides. net().heal_all() ends it.
  void silence(NodeId id);
  void pause(NodeId id);
  void resume(NodeId id);
  void wipe_disk(NodeId id);                     // the node must be down
  void jump_wall_clock(NodeId id, std::int64_t delta_ms);

  SimNetwork& net() { return *net_; }

  // ---- running ---------------------------------------------------------------------------
  // Runs events until `goal()` is true (checked before each event), for at most `limit` of
  // virtual time.
  RunReport run_until(const std::function<bool()>& goal, Duration limit);
  // Runs every event due within `d`; virtual time then advances to exactly now + d.
  void run_for(Duration d);
  // Spawns `task` on `node` and runs the world until it finishes. An exception thrown by the
  // task is rethrown here. Not finishing is reported in the result (deadlock, time limit,
  // destroyed by a crash).
  template <typename T>
  TaskRun<T> run_task(NodeId node, Task<T> task, Duration limit);

  // ---- inspection ------------------------------------------------------------------------
  MonoTime now() const { return now_; }
  const MonoTime* now_ptr() const { return &now_; }
  std::uint64_t trace_hash() const { return trace_.value(); }
  // The trace hash with the end state folded in: each node's disk (its files' current and
  // durable bytes), in node order. Call once at the end of a run; two runs of one seed must
  // agree on it. (The schedule, random draws and every delivered byte are in trace_hash().)
  std::uint64_t final_hash();
  std::uint64_t events_run() const { return events_run_; }
  std::uint64_t events_skipped() const { return events_skipped_; }
  std::size_t events_pending() const { return queue_.size(); }
  const WorldOptions& options() const { return options_; }
  const LogSettings& log_settings() const { return log_; }
  // The world's control PRNG, for workloads and fault schedules driven by tests.
  Random& random() { return control_random_; }

  // ---- for the simulator's parts ---------------------------------------------------------
  // Schedules `fn` at world time `when` (>= now()) for the node and incarnation in `tag`.
  TimerId schedule(MonoTime when, EventTag tag, std::function<void()> fn);
  bool cancel(TimerId id) { return queue_.cancel(id); }
  // An independent PRNG for one purpose (mixes into the trace).
  Random fork_random() { return root_random_.fork(); }
  bool buggify(const char* file, int line) { return buggify_.decide(file, line); }
  // No BUGGIFY site fires from now on (the quiet phase).
  void stop_buggify() { buggify_.stop(); }
  TraceHash& trace() { return trace_; }

 private:
  void dispatch(EventTag tag, std::function<void()>& fn);
  bool step();  // runs the next event; false when none is left
  std::string idle_description() const;

  WorldOptions options_;
  LogSettings log_;
  TraceHash trace_;
  Random root_random_;
  Random control_random_;
  Buggify buggify_;
  MonoTime now_{};
  TimerQueue queue_;
  std::uint64_t events_run_ = 0;
  std::uint64_t events_skipped_ = 0;
  std::vector<std::unique_ptr<SimNode>> nodes_;
  std::unique_ptr<SimNetwork> net_;
  StartObserver start_observer_;
};

// ---- run_task ------------------------------------------------------------------------------

namespace detail {

template <typename T>
struct TaskSlot {
  std::optional<typename TaskRun<T>::Value> value;
  std::exception_ptr error;
  bool finished = false;
  bool destroyed = false;
};

// Marks the slot destroyed when the frame that owns it goes away unfinished. A parameter of
// drive_task, so it lives in the frame even before the task first runs (move-only).
template <typename T>
struct SlotGuard {
  std::shared_ptr<TaskSlot<T>> slot;
  explicit SlotGuard(std::shared_ptr<TaskSlot<T>> s) : slot(std::move(s)) {}
  SlotGuard(SlotGuard&& o) noexcept : slot(std::move(o.slot)) {}
  SlotGuard(const SlotGuard&) = delete;
  ~SlotGuard() {
    if (slot && !slot->finished) slot->destroyed = true;
  }
};

template <typename T>
Task<void> drive_task(Task<T> task, SlotGuard<T> guard) {
  TaskSlot<T>& slot = *guard.slot;
  try {
    if constexpr (std::is_void_v<T>) {
      co_await std::move(task);
      slot.value.emplace();
    } else {
      slot.value.emplace(co_await std::move(task));
    }
  } catch (...) {
    slot.error = std::current_exception();
  }
  slot.finished = true;
}

void spawn_on(SimNode& node, Task<void> task, std::string name);
bool node_up(const SimNode& node);

}  // namespace detail

template <typename T>
TaskRun<T> World::run_task(NodeId id, Task<T> task, Duration limit) {
  TaskRun<T> out;
  if (!detail::node_up(node(id))) {
    out.report.stop = Stop::destroyed;
    out.report.at = now_;
    out.report.message = "run_task on a node that is down";
    return out;
  }
  auto slot = std::make_shared<detail::TaskSlot<T>>();
  detail::spawn_on(node(id), detail::drive_task<T>(std::move(task), detail::SlotGuard<T>(slot)), "run_task");
  out.report = run_until([&slot] { return slot->finished || slot->destroyed; }, limit);
  if (slot->error) std::rethrow_exception(slot->error);
  if (out.report.ok() && slot->destroyed) {
    out.report.stop = Stop::destroyed;
    out.report.message = "the task was destroyed before it finished (its node crashed or stopped)";
  }
  if (slot->finished) out.value = std::move(slot->value);
  return out;
}

}  // namespace ferry::sim
