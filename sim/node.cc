#include "sim/node.h"

#include "runtime/log.h"
#include "sim/net/network.h"
#include "sim/world.h"

namespace ferry::sim {

// ---- executor and timers -------------------------------------------------------------------

void SimExecutor::post(std::function<void()> fn) {
  World& w = node_.world();
  w.schedule(w.now(), node_.tag(), std::move(fn));
}

TimerId SimTimers::schedule(Duration delay, std::function<void()> fn) {
  World& w = node_.world();
  const MonoTime node_now = node_.sim_clock().now();
  const MonoTime node_deadline = node_now + (delay > 0ns ? delay : 0ns);
  MonoTime when = node_.sim_clock().world_time_at(node_deadline);
  if (when < w.now()) when = w.now();
  const std::uint64_t seq = ++next_seq_;
  // The event runs fn only if the timer is still pending (cancel() may not reach an event that
  // a pause moved to the deferred list).
  const TimerId world_id = w.schedule(when, node_.tag(), [this, seq, fn = std::move(fn)] {
    if (pending_.erase(seq) == 0) return;
    fn();
  });
  pending_.emplace(seq, world_id);
  return TimerId{node_deadline, seq};
}

bool SimTimers::cancel(TimerId id) {
  auto it = pending_.find(id.seq);
  if (it == pending_.end()) return false;
  (void)node_.world().cancel(it->second);
  pending_.erase(it);
  return true;
}

void SimTimers::drop_all() {
  for (const auto& [seq, world_id] : pending_) (void)node_.world().cancel(world_id);
  pending_.clear();
}

// ---- node ----------------------------------------------------------------------------------

SimNode::SimNode(World& world, NodeId id, std::string name, std::string host, NodeFactory factory,
                 Random random, std::int64_t skew_ms, std::int64_t drift_ppm)
    : world_(world),
      id_(id),
      name_(std::move(name)),
      host_(std::move(host)),
      factory_(std::move(factory)),
      clock_(world.now_ptr(), world.options().clock.epoch_wall_ms, skew_ms, drift_ppm),
      executor_(*this),
      timers_(*this),
      random_(random),
      logger_(std::make_shared<ClockedLogger>(name_, &clock_, world.log_settings())),
      network_(world.net(), id),
      disk_(world, id, world.options().disk, random_.fork()),
      fs_(disk_) {
  timers_.bind(executor_);
}

SimNode::~SimNode() {
  // The world tears nodes down through crash(); here only what is left (never-started nodes).
  executor_.tasks().destroy_all();
  process_.reset();
  logger_->forget_clock();  // a line logged after this (the logger may be shared) shows no time
}

Task<void> SimNode::offload(std::function<void()> fn) {
  fn();  // the simulation has no threads: blocking work runs inline, in zero virtual time
  co_return;
}

bool SimNode::buggify(const char* file, int line) { return world_.buggify(file, line); }

void SimNode::start() {
  FERRY_ASSERT(state_ == State::down, "start() of node {} that is up", name_);
  ++incarnation_;
  ++starts_;
  state_ = State::running;
  busy_until_ = MonoTime{};
  world_.net().power_on_node(id_);
  logger_->info("node started (incarnation {})", incarnation_);
  if (factory_) process_ = factory_(*this);
  world_.notify_started(id_, incarnation_);
}

void SimNode::crash(CrashKind kind, bool quiet) {
  if (state_ == State::down) return;
  FERRY_ASSERT(state_ != State::crashing, "crash() of node {} during its own crash", name_);
  if (!quiet) logger_->info("node crashed: {} (incarnation {})", crash_kind_name(kind), incarnation_);
  state_ = State::crashing;
  crash_kind_ = kind;
  ++incarnation_;  // everything posted from here on (by destructors) is stale
  executor_.tasks().destroy_all();
  process_.reset();
  if (kind == CrashKind::power_loss) {
    world_.net().power_off_node(id_);
  } else {
    world_.net().kill_node(id_);
  }
  timers_.drop_all();
  deferred_.clear();
  if (kind == CrashKind::power_loss) {
    disk_.crash();
  } else {
    disk_.process_killed();
  }
  state_ = State::down;
}

void SimNode::stall(Duration d) {
  if (d <= 0ns) return;
  busy_until_ = std::max(busy_until_, world_.now() + d);
}

void SimNode::pause() {
  FERRY_ASSERT(state_ == State::running, "pause() of node {} that is not running", name_);
  state_ = State::paused;
}

void SimNode::resume() {
  FERRY_ASSERT(state_ == State::paused, "resume() of node {} that is not paused", name_);
  state_ = State::running;
  // Re-queue what waited, in its original order, at the current time.
  std::vector<std::function<void()>> waiting = std::move(deferred_);
  deferred_.clear();
  for (auto& fn : waiting) world_.schedule(world_.now(), tag(), std::move(fn));
}

const char* crash_kind_name(CrashKind kind) {
  switch (kind) {
    case CrashKind::process_kill: return "process kill";
    case CrashKind::power_loss: return "power loss";
  }
  return "?";
}

}  // namespace ferry::sim

namespace ferry::sim::detail {
void spawn_on(SimNode& node, Task<void> task, std::string name) {
  node.executor().spawn(std::move(task), std::move(name));
}
bool node_up(const SimNode& node) { return node.up(); }
}  // namespace ferry::sim::detail
