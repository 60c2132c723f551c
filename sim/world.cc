#include "sim/world.h"

#include "runtime/assert.h"
#include "sim/net/network.h"
#include "sim/node.h"

namespace ferry::sim {

namespace {
// Purposes of the root PRNG's forks, in the order they are made (never reorder: it shifts runs).
Random fork_for(Random& root) { return root.fork(); }
}  // namespace

World::World(WorldOptions options, LogSettings log)
    : options_((options.check(), options)),
      log_(std::move(log)),
      root_random_(options_.seed, &trace_),
      control_random_(fork_for(root_random_)),
      buggify_(options_.buggify, fork_for(root_random_)) {
  net_ = std::make_unique<SimNetwork>(*this, options_.network, fork_for(root_random_));
}

World::~World() {
  // Tasks and components go first (their destructors still talk to the network and timers),
  // then pending events, then the nodes and the network themselves.
  for (auto& n : nodes_) n->crash(CrashKind::process_kill, /*quiet=*/true);
  queue_.clear();
  nodes_.clear();
  net_.reset();
}

// ---- nodes -------------------------------------------------------------------------------------

NodeId World::add_node(std::string name, NodeFactory factory) {
  FERRY_ASSERT(!find_node(name).has_value(), "a node named '{}' exists", name);
  FERRY_ASSERT_LT(nodes_.size(), 240u);
  const NodeId id{static_cast<std::uint32_t>(nodes_.size())};
  std::string host = "127.0.0." + std::to_string(10 + id.value);
  net_->add_host(id, host);
  Random random = fork_for(root_random_);
  const std::int64_t skew_ms = random.between(-options_.clock.skew_max_ms, options_.clock.skew_max_ms);
  const std::int64_t drift_ppm = random.between(-options_.clock.drift_max_ppm, options_.clock.drift_max_ppm);
  nodes_.push_back(std::make_unique<SimNode>(*this, id, std::move(name), std::move(host), std::move(factory),
                                             std::move(random), skew_ms, drift_ppm));
  trace_.mix(0x6e6f6465ULL ^ id.value);
  nodes_.back()->start();
  return id;
}

SimNode& World::node(NodeId id) {
  FERRY_ASSERT_LT(id.value, nodes_.size());
  return *nodes_[id.value];
}

const SimNode& World::node(NodeId id) const {
  FERRY_ASSERT_LT(id.value, nodes_.size());
  return *nodes_[id.value];
}

std::optional<NodeId> World::find_node(const std::string& name) const {
  for (const auto& n : nodes_) {
    if (n->node_name() == name) return n->id();
  }
  return std::nullopt;
}

void World::start(NodeId id) {
  trace_.mix(0x7374617274ULL ^ id.value);
  node(id).start();
}

void World::crash(NodeId id, CrashKind kind) {
  trace_.mix(0x6372617368ULL ^ id.value ^ (static_cast<std::uint64_t>(kind) << 40));
  node(id).crash(kind);
}

void World::silence(NodeId id) {
  trace_.mix(0x73696c656e74ULL ^ id.value);
  net_->isolate(id);
}

void World::restart(NodeId id, CrashKind kind, Duration delay, bool wipe) {
  crash(id, kind);
  if (wipe) wipe_disk(id);
  schedule(now_ + delay, EventTag{}, [this, id] {
    if (!node(id).up()) start(id);
  });
}

void World::pause(NodeId id) { node(id).pause(); }
void World::resume(NodeId id) { node(id).resume(); }

void World::wipe_disk(NodeId id) {
  SimNode& n = node(id);
  FERRY_ASSERT(!n.up(), "wipe_disk of node {} that is up", n.node_name());
  n.disk().wipe();
}

std::uint64_t World::final_hash() {
  for (const auto& n : nodes_) n->disk().digest(trace_);
  return trace_.value();
}

void World::jump_wall_clock(NodeId id, std::int64_t delta_ms) { node(id).sim_clock().jump_wall(delta_ms); }

// ---- events ------------------------------------------------------------------------------------

TimerId World::schedule(MonoTime when, EventTag tag, std::function<void()> fn) {
  FERRY_ASSERT(when >= now_, "event scheduled in the past: {} < {} ns", to_ns(when), to_ns(now_));
  const TimerId id = queue_.add(when, [this, tag, fn = std::move(fn)]() mutable { dispatch(tag, fn); });
  trace_.mix(static_cast<std::uint64_t>(to_ns(when)));
  trace_.mix(id.seq ^ (static_cast<std::uint64_t>(tag.node.value) << 32));
  return id;
}

void World::dispatch(EventTag tag, std::function<void()>& fn) {
  if (tag.node == kWorldNode) {
    fn();
    return;
  }
  SimNode& n = node(tag.node);
  if (n.incarnation() != tag.incarnation || !n.up()) {
    ++events_skipped_;  // an event of a crashed life: never runs
    return;
  }
  if (n.state() == SimNode::State::paused) {
    n.defer(std::move(fn));
    return;
  }
  if (n.busy_until() > now_) {  // the node's loop is stalled: run this after, in order
    schedule(n.busy_until(), tag, std::move(fn));
    return;
  }
  fn();
}

bool World::step() {
  const std::optional<MonoTime> next = queue_.next_deadline();
  if (!next) return false;
  auto event = queue_.pop_due(*next);
  FERRY_ASSERT(event.has_value(), "the earliest event is not due at its own deadline");
  now_ = event->first.when;
  trace_.mix(event->first.seq);
  ++events_run_;
  event->second();
  return true;
}

std::string World::idle_description() const {
  std::string out = fmt::format("no events left at virtual time {} ns after {} events", to_ns(now_), events_run_);
  for (const auto& n : nodes_) {
    if (n->state() == SimNode::State::paused) {
      out += fmt::format("; node {} is paused with {} deferred events", n->node_name(), n->deferred_events());
    }
  }
  return out;
}

RunReport World::run_until(const std::function<bool()>& goal, Duration limit) {
  FERRY_ASSERT(limit >= 0ns, "negative time limit {} ns", limit.count());
  const MonoTime deadline = now_ + limit;
  const std::uint64_t first = events_run_;
  RunReport report;
  for (;;) {
    if (goal()) {
      report.stop = Stop::satisfied;
      break;
    }
    const std::optional<MonoTime> next = queue_.next_deadline();
    if (!next) {
      report.stop = Stop::deadlock;
      report.message = "deadlock: " + idle_description();
      break;
    }
    if (*next > deadline) {
      now_ = deadline;
      report.stop = Stop::time_limit;
      report.message = fmt::format("time limit of {} ms reached with {} events pending", to_ms(limit), queue_.size());
      break;
    }
    step();
  }
  report.at = now_;
  report.events = events_run_ - first;
  return report;
}

void World::run_for(Duration d) {
  FERRY_ASSERT(d >= 0ns, "negative duration {} ns", d.count());
  const MonoTime deadline = now_ + d;
  for (;;) {
    const std::optional<MonoTime> next = queue_.next_deadline();
    if (!next || *next > deadline) break;
    step();
  }
  now_ = deadline;
}

}  // namespace ferry::sim
