// A tiny deterministic generator for tests (splitmix64): the same inputs on every run.
#pragma once

#include <cstdint>

namespace ferry::remoting::testing {

class TestRng {
 public:
  explicit TestRng(std::uint64_t seed) : s_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (s_ += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  // Uniform enough in [0, n) for tests; n > 0.
  std::uint64_t below(std::uint64_t n) { return next() % n; }

 private:
  std::uint64_t s_;
};

}  // namespace ferry::remoting::testing
