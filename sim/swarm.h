// Swarm testing: the whole fault configuration drawn from a seed, so a sweep over seeds also
// sweeps over configurations (a quiet network with a bad disk, a lossy network with skewed
// clocks, ...). Each area is on or off with its own coin, then its knobs are drawn in range.
#pragma once

#include <cstdint>

#include "sim/options.h"

namespace ferry::sim {

// Options for World(seed) with fault probabilities drawn from `seed` (deterministically; the
// draws use their own generator and do not shift the world's).
WorldOptions swarm_options(std::uint64_t seed);

}  // namespace ferry::sim
