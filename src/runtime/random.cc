#include "runtime/random.h"

#include "runtime/assert.h"

namespace ferry {

namespace {
std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
}  // namespace

Random::Random(std::uint64_t seed, TraceHash* trace) : trace_(trace) {
  std::uint64_t x = seed;
  for (auto& w : s_) w = splitmix64(x);
}

std::uint64_t Random::next_u64() {
  const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
  const std::uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  if (trace_) trace_->mix(result);
  return result;
}

std::uint64_t Random::below(std::uint64_t n) {
  FERRY_ASSERT(n > 0, "Random::below(0)");
  // Lemire-free simple rejection: reject the top partial bucket.
  const std::uint64_t limit = UINT64_MAX - (UINT64_MAX % n);
  for (;;) {
    const std::uint64_t v = next_u64();
    if (v < limit) return v % n;
  }
}

std::int64_t Random::between(std::int64_t lo, std::int64_t hi) {
  FERRY_ASSERT_LE(lo, hi);
  const std::uint64_t span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);
  if (span == UINT64_MAX) return static_cast<std::int64_t>(next_u64());
  return static_cast<std::int64_t>(static_cast<std::uint64_t>(lo) + below(span + 1));
}

std::uint64_t Random::exponential(std::uint64_t mean) {
  if (mean == 0) return 0;
  // Count halvings: P(k) = 2^-(k+1); then add a uniform fraction of the bucket. The mean of
  // this discrete-continuous mix is ~mean (bucket k covers [k, k+1) × mean × ln 2 ... close
  // enough for latency tails, and exactly reproducible with integers only).
  std::uint64_t k = 0;
  while (k < 31 && (next_u64() & 1) == 0) ++k;
  const std::uint64_t base = k * mean;
  return base + below(mean);
}

Random Random::fork() {
  Random child(next_u64(), trace_);
  return child;
}

}  // namespace ferry
