// Latency samples and percentiles for the benchmark tools (not component code).
//
// LatencySamples keeps every sample (exact percentiles; memory grows with the run): for short
// fixed-count runs (remoting_bench).
//
// LatencyHistogram is a log-linear histogram of microsecond values (HdrHistogram's layout with
// 128 sub-buckets per power of two): fixed memory (kBuckets counters, about 37 KiB) whatever the
// run length, mergeable, and a percentile is never reported lower than the true one and at most
// 1/128 (0.8 %) above it (values below 256 us are exact). Count, min, max and mean are exact.
// Values below 0 count as 0; values at or beyond kValueLimitUs (about 50 days) count as
// kValueLimitUs - 1 and in clamped(). Not thread-safe.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace ferry::cli {

class LatencySamples {
 public:
  void reserve(std::size_t n) { ns_.reserve(n); }
  void add(std::int64_t ns) { ns_.push_back(ns); }
  std::size_t count() const { return ns_.size(); }
  // The p-th percentile (0..100) in nanoseconds; 0 when empty. Sorts lazily.
  std::int64_t percentile(double p) {
    if (ns_.empty()) return 0;
    if (!sorted_) {
      std::sort(ns_.begin(), ns_.end());
      sorted_ = true;
    }
    const double rank = p / 100.0 * static_cast<double>(ns_.size() - 1);
    return ns_[static_cast<std::size_t>(rank + 0.5)];
  }
  std::int64_t max() { return percentile(100); }

 private:
  std::vector<std::int64_t> ns_;
  bool sorted_ = false;
};

class LatencyHistogram {
 public:
  static constexpr int kSubBits = 7;                              // 128 sub-buckets per power of two
  static constexpr std::int64_t kExact = std::int64_t{2} << kSubBits;  // 0..255 have a bucket each
  static constexpr int kTopBit = 42;                              // values < 2^42 us
  static constexpr std::int64_t kValueLimitUs = std::int64_t{1} << kTopBit;
  static constexpr std::size_t kBuckets =
      static_cast<std::size_t>(kExact) + static_cast<std::size_t>(kTopBit - kSubBits - 1) * (std::size_t{1} << kSubBits);

  void record_us(std::int64_t us) {
    if (us < 0) us = 0;
    if (us >= kValueLimitUs) {
      us = kValueLimitUs - 1;
      ++clamped_;
    }
    ++counts_[index_of(us)];
    ++count_;
    sum_us_ += static_cast<double>(us);
    min_us_ = std::min(min_us_, us);
    max_us_ = std::max(max_us_, us);
  }

  void merge(const LatencyHistogram& other) {
    for (std::size_t i = 0; i < kBuckets; ++i) counts_[i] += other.counts_[i];
    count_ += other.count_;
    clamped_ += other.clamped_;
    sum_us_ += other.sum_us_;
    min_us_ = std::min(min_us_, other.min_us_);
    max_us_ = std::max(max_us_, other.max_us_);
  }

  void reset() { *this = LatencyHistogram(); }

  std::uint64_t count() const { return count_; }
  std::uint64_t clamped() const { return clamped_; }
  std::int64_t min_us() const { return count_ == 0 ? 0 : min_us_; }
  std::int64_t max_us() const { return count_ == 0 ? 0 : max_us_; }
  double mean_us() const { return count_ == 0 ? 0.0 : sum_us_ / static_cast<double>(count_); }

  // The smallest bucket bound v with at least p % (0..100) of the values <= v, capped at max_us()
  // (p = 100 is max_us(), p = 0 min_us()); 0 when empty.
  std::int64_t percentile_us(double p) const {
    if (count_ == 0) return 0;
    if (p <= 0) return min_us();
    const double wanted = std::ceil(std::min(p, 100.0) / 100.0 * static_cast<double>(count_));
    const std::uint64_t rank = std::max<std::uint64_t>(1, static_cast<std::uint64_t>(wanted));
    std::uint64_t seen = 0;
    for (std::size_t i = 0; i < kBuckets; ++i) {
      seen += counts_[i];
      if (seen >= rank) return std::min(upper_of(i), max_us_);
    }
    return max_us_;
  }

  // Bucket layout, public for tests.
  static std::size_t index_of(std::int64_t us) {
    if (us < kExact) return static_cast<std::size_t>(us);
    const int top = std::bit_width(static_cast<std::uint64_t>(us)) - 1;  // >= kSubBits + 1
    const int shift = top - kSubBits;
    const std::int64_t sub = (us >> shift) - (std::int64_t{1} << kSubBits);  // 0..127
    return static_cast<std::size_t>(kExact) + static_cast<std::size_t>(top - kSubBits - 1) * (std::size_t{1} << kSubBits) +
           static_cast<std::size_t>(sub);
  }
  // The largest value of bucket `i`.
  static std::int64_t upper_of(std::size_t i) {
    if (i < static_cast<std::size_t>(kExact)) return static_cast<std::int64_t>(i);
    const std::size_t k = i - static_cast<std::size_t>(kExact);
    const int top = kSubBits + 1 + static_cast<int>(k >> kSubBits);
    const int shift = top - kSubBits;
    const std::int64_t mantissa = (std::int64_t{1} << kSubBits) + static_cast<std::int64_t>(k & ((1u << kSubBits) - 1));
    return ((mantissa + 1) << shift) - 1;
  }

 private:
  std::array<std::uint64_t, kBuckets> counts_{};
  std::uint64_t count_ = 0;
  std::uint64_t clamped_ = 0;
  double sum_us_ = 0;
  std::int64_t min_us_ = std::numeric_limits<std::int64_t>::max();
  std::int64_t max_us_ = 0;
};

}  // namespace ferry::cli
