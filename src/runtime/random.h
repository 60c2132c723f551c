// Random: Ferry's only source of randomness. Integer-only, seedable, forkable, and the same on
// every platform (our own xoshiro256** seeded by splitmix64; never std:: distributions).
//
// In simulation every draw is mixed into the world's trace hash (see TraceHash), so the same
// seed must give the same run. Production seeds from the OS once per process.
#pragma once

#include <array>
#include <cstdint>

namespace ferry {

// A rolling 64-bit hash over a run's decisions (events scheduled, random draws).
class TraceHash {
 public:
  void mix(std::uint64_t v) {
    h_ ^= v + 0x9e3779b97f4a7c15ULL + (h_ << 6) + (h_ >> 2);
    h_ *= 0xff51afd7ed558ccdULL;
    h_ ^= h_ >> 33;
  }
  std::uint64_t value() const { return h_; }

 private:
  std::uint64_t h_ = 0xcbf29ce484222325ULL;
};

class Random {
 public:
  explicit Random(std::uint64_t seed, TraceHash* trace = nullptr);

  std::uint64_t next_u64();
  // Uniform in [0, n); n must be > 0. Unbiased (rejection sampling).
  std::uint64_t below(std::uint64_t n);
  // Uniform in [lo, hi] (inclusive); lo <= hi.
  std::int64_t between(std::int64_t lo, std::int64_t hi);
  // True with probability 1/n (n >= 1).
  bool one_in(std::uint64_t n) { return below(n) == 0; }
  // True with probability ppm / 1,000,000.
  bool chance_ppm(std::uint32_t ppm) { return below(1'000'000) < ppm; }
  // An exponentially distributed integer with the given mean (integer arithmetic only),
  // capped at 32 × mean. Used for latency tails.
  std::uint64_t exponential(std::uint64_t mean);

  // An independent generator derived from this one (consumes one draw); for a purpose
  // (per node, per link) so that adding draws in one purpose does not shift another.
  Random fork();

 private:
  std::array<std::uint64_t, 4> s_{};
  TraceHash* trace_ = nullptr;
};

}  // namespace ferry
