// Buggify: fault hooks by source location, drawn from the world's seed (FoundationDB's buggify).
//
// When enabled, each call site (file, line) is switched on or off once per run, with
// site_enabled_ppm; an enabled site then fires on each call with fire_ppm. When disabled every
// call returns false and draws nothing, so a run without buggify has the same trace as before.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "runtime/random.h"
#include "sim/options.h"

namespace ferry::sim {

class Buggify {
 public:
  Buggify(BuggifyOptions options, Random random);

  bool decide(const char* file, int line);
  // No site fires from now on (the liveness phase's quiet, sim/cluster/cluster.h); draws nothing.
  void stop() { options_.enabled = false; }
  std::size_t sites_seen() const { return sites_.size(); }

 private:
  BuggifyOptions options_;
  Random random_;
  std::map<std::pair<std::string, int>, bool> sites_;  // ordered: no pointer values reach a decision
};

}  // namespace ferry::sim
