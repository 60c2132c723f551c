// LogLimiter: one line per period per kind, a new kind at once, and the count of what was held
// back carried by the next line that passes.
#include "runtime/log_limiter.h"

#include <gtest/gtest.h>

namespace ferry {
namespace {

MonoTime at(std::int64_t ms) { return MonoTime(std::chrono::milliseconds(ms)); }

TEST(LogLimiter, OneLinePerPeriodAndTheNextSaysHowManyWereHeldBack) {
  LogLimiter l(std::chrono::seconds(10));
  ASSERT_EQ(l.admit(at(0)), std::optional<std::uint64_t>(0)) << "the first line passes";
  for (int i = 1; i <= 999; ++i) EXPECT_FALSE(l.admit(at(i * 10)).has_value()) << "line " << i << " at " << i * 10 << " ms";
  EXPECT_EQ(l.held(), 999u);
  EXPECT_EQ(l.admit(at(10'000)), std::optional<std::uint64_t>(999)) << "after the period, with the count";
  EXPECT_EQ(l.held(), 0u);
  EXPECT_FALSE(l.admit(at(19'999)).has_value());
  EXPECT_EQ(l.admit(at(20'000)), std::optional<std::uint64_t>(1));
}

TEST(LogLimiter, ANewKindPassesAtOnceTheSameKindWaits) {
  LogLimiter l;
  ASSERT_TRUE(l.admit(at(0), 24).has_value());
  EXPECT_FALSE(l.admit(at(1), 24).has_value());
  EXPECT_EQ(l.admit(at(2), 28), std::optional<std::uint64_t>(1)) << "another cause is news";
  EXPECT_FALSE(l.admit(at(3), 28).has_value());
  EXPECT_TRUE(l.admit(at(4), 24).has_value()) << "and so is the first one coming back";
}

TEST(LogLimiter, ResetLetsTheNextLineThrough) {
  LogLimiter l;
  ASSERT_TRUE(l.admit(at(0)).has_value());
  EXPECT_FALSE(l.admit(at(5)).has_value());
  l.reset();
  EXPECT_EQ(l.admit(at(6)), std::optional<std::uint64_t>(0)) << "the fault cleared and came back";
}

TEST(LogLimiter, HeldBackNote) {
  EXPECT_EQ(held_back_note(0), "");
  EXPECT_EQ(held_back_note(1), " (1 more like it held back)");
  EXPECT_EQ(held_back_note(41), " (41 more like it held back)");
}

}  // namespace
}  // namespace ferry
