// Watch: the runner's observers of a running Cluster. Each observer is called with the virtual
// time at most every `every` of virtual time while the run advances (after the World's events,
// never inside one), so that it can record what the nodes' state shows — which brokers a
// NameServer routes, which route a client holds, which offsets a broker has committed — into the
// History, where the checkers find it. Observers only read: they must not change the World (a
// run with observers has the same trace hash as one without).
//
//   Watch w(std::chrono::milliseconds(250));
//   w.add([&](MonoTime now) { ... });
//   w.advance(cluster, until);        // instead of cluster.run_for(until - now)
//
// Single-threaded, like the Cluster.
#pragma once

#include <functional>
#include <vector>

#include "runtime/time.h"
#include "sim/cluster/cluster.h"

namespace ferry::sim::scenario {

class Watch {
 public:
  using Observer = std::function<void(MonoTime now)>;

  explicit Watch(Duration every) : every_(every) {}

  void add(Observer o) { observers_.push_back(std::move(o)); }
  // Calls every observer when `every` has passed since the last call (or on the first call).
  void tick(MonoTime now);
  // Runs the cluster until virtual time `until` (nothing when it has passed), ticking after each
  // event, and once more at the end.
  void advance(cluster::Cluster& c, MonoTime until);

 private:
  Duration every_;
  std::vector<Observer> observers_;
  bool started_ = false;
  MonoTime next_{};
};

}  // namespace ferry::sim::scenario
