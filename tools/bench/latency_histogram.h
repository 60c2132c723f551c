// Latency samples and percentiles for the benchmark tools (not component code).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace ferry::bench {

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

}  // namespace ferry::bench
