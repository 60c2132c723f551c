// cli/latency_histogram.h: LatencyHistogram's bucket layout, its percentile bound (never
// below the exact percentile, at most 1/128 above it) against the sorted data, merge, reset and
// clamping.
#include "cli/latency_histogram.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

namespace ferry::cli {
namespace {

TEST(LatencyHistogram, BucketsCoverEveryValueOnceAndInOrder) {
  using H = LatencyHistogram;
  EXPECT_EQ(H::index_of(0), 0u);
  EXPECT_EQ(H::index_of(255), 255u);
  EXPECT_EQ(H::index_of(256), 256u);
  EXPECT_EQ(H::upper_of(256), 257);
  EXPECT_EQ(H::index_of(H::kValueLimitUs - 1), H::kBuckets - 1);
  EXPECT_EQ(H::upper_of(H::kBuckets - 1), H::kValueLimitUs - 1);
  // Each bucket starts right after the previous one ends, and its width is at most 1/128 of its
  // smallest value beyond the exact range.
  std::int64_t lower = 0;
  for (std::size_t i = 0; i < H::kBuckets; ++i) {
    const std::int64_t upper = H::upper_of(i);
    ASSERT_GE(upper, lower) << i;
    ASSERT_EQ(H::index_of(lower), i) << lower;
    ASSERT_EQ(H::index_of(upper), i) << upper;
    if (lower >= H::kExact) {
      ASSERT_LE((upper - lower + 1) * 128, lower) << i;
    }
    lower = upper + 1;
  }
  EXPECT_EQ(lower, H::kValueLimitUs);
}

TEST(LatencyHistogram, PercentilesBoundTheExactOnes) {
  LatencyHistogram h;
  std::vector<std::int64_t> values;
  std::uint64_t x = 88172645463325252ull;
  for (int i = 0; i < 100000; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    // A long tail: mostly 100 us .. 5 ms, sometimes up to 2 s.
    const std::int64_t v = (i % 100 == 0) ? static_cast<std::int64_t>(x % 2'000'000) : 100 + static_cast<std::int64_t>(x % 5000);
    h.record_us(v);
    values.push_back(v);
  }
  std::sort(values.begin(), values.end());
  EXPECT_EQ(h.count(), values.size());
  for (double p : {1.0, 50.0, 90.0, 99.0, 99.9, 99.99}) {
    // The exact p-th percentile: the smallest value with at least p % of the values <= it.
    const auto rank = static_cast<std::size_t>(std::ceil(p / 100.0 * static_cast<double>(values.size())));
    const std::int64_t truth = values[rank - 1];
    const std::int64_t got = h.percentile_us(p);
    EXPECT_GE(got, truth) << p;
    EXPECT_LE(got, truth + truth / 128) << p;
  }
  EXPECT_EQ(h.percentile_us(100), values.back());
  EXPECT_EQ(h.max_us(), values.back());
  EXPECT_EQ(h.percentile_us(0), values.front());
}

TEST(LatencyHistogram, SmallValuesAreExactAndMergeResetClampWork) {
  LatencyHistogram a;
  for (std::int64_t v : {5, 1, 3, 2, 4}) a.record_us(v);
  EXPECT_EQ(a.percentile_us(50), 3);
  EXPECT_EQ(a.percentile_us(20), 1);
  EXPECT_EQ(a.percentile_us(21), 2);
  EXPECT_EQ(a.min_us(), 1);
  EXPECT_EQ(a.max_us(), 5);
  EXPECT_DOUBLE_EQ(a.mean_us(), 3.0);

  LatencyHistogram b;
  b.record_us(-7);  // counts as 0
  b.record_us(LatencyHistogram::kValueLimitUs + 5);
  EXPECT_EQ(b.clamped(), 1u);
  EXPECT_EQ(b.min_us(), 0);
  EXPECT_EQ(b.max_us(), LatencyHistogram::kValueLimitUs - 1);
  a.merge(b);
  EXPECT_EQ(a.count(), 7u);
  EXPECT_EQ(a.min_us(), 0);
  EXPECT_EQ(a.max_us(), LatencyHistogram::kValueLimitUs - 1);
  EXPECT_EQ(a.clamped(), 1u);

  a.reset();
  EXPECT_EQ(a.count(), 0u);
  EXPECT_EQ(a.percentile_us(99), 0);
  EXPECT_EQ(a.max_us(), 0);
  EXPECT_EQ(a.min_us(), 0);
}

}  // namespace
}  // namespace ferry::cli
