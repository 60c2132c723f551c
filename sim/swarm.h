// Swarm testing: the whole fault configuration drawn from a seed, so a sweep over seeds also
// sweeps over configurations (a quiet network with a bad disk, a lossy network with skewed
// clocks, ...). Each area is on or off with its own coin, then its knobs are drawn in range.
#pragma once

#include <cstdint>
#include <string>

#include "sim/options.h"

namespace ferry::sim {

// Options for World(seed) with fault probabilities drawn from `seed` (deterministically; the
// draws use their own generator and do not shift the world's).
WorldOptions swarm_options(std::uint64_t seed);

// One line for people: the world a seed drew ("net 1.20 ms + tail 3.10 ms; sync 4.0 ms, slow
// 2.1% x 1.50 s, EIO 0.12%; ..."), so a slow or failing seed says what kind of world it was.
std::string describe_world(const WorldOptions& o);

}  // namespace ferry::sim
