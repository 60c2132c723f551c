#include "sim/scenario/watch.h"

namespace ferry::sim::scenario {

void Watch::tick(MonoTime now) {
  if (observers_.empty() || (started_ && now < next_)) return;
  started_ = true;
  next_ = now + every_;
  for (const Observer& o : observers_) o(now);
}

void Watch::advance(cluster::Cluster& c, MonoTime until) {
  World& w = c.world();
  if (until <= w.now()) return;
  // A goal that never holds: run_until runs every event up to `until`, as run_for does, and lets
  // the observers look after each one.
  w.run_until(
      [&] {
        tick(w.now());
        return false;
      },
      until - w.now());
  if (w.now() < until) w.run_for(until - w.now());  // a deadlock stopped it early
  tick(w.now());
}

}  // namespace ferry::sim::scenario
