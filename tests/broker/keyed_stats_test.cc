// KeyedStats on its own, on a fake clock: what each window (minute, hour, day) reports as time
// moves on, and the cap on keys.
#include "broker/keyed_stats.h"

#include <gtest/gtest.h>

namespace ferry::broker {
namespace {

using Series = KeyedStats::Series;

MonoTime at_s(double s) { return MonoTime(std::chrono::duration_cast<Duration>(std::chrono::duration<double>(s))); }
constexpr double kHour = 3600;

KeyedStats::Windows find(const KeyedStats& k, double s, const std::string& key, Series series = Series::nums) {
  auto w = k.find(at_s(s), key, series);
  EXPECT_TRUE(w.has_value()) << key << " at " << s << " s";
  return w.value_or(KeyedStats::Windows{});
}

TEST(KeyedStatsTest, CountsShowAtOnceInEveryWindow) {
  KeyedStats k(at_s(0), 16);
  EXPECT_FALSE(k.find(at_s(0), "T", Series::nums).has_value());
  k.add(at_s(0.5), "T", 10, 1000);  // one request of 10 messages
  k.add(at_s(3), "T", 5, 500);
  k.add(at_s(3), "T", 1, 100);

  KeyedStats::Windows w = find(k, 4, "T");
  EXPECT_EQ(w.minute.sum, 16);
  EXPECT_EQ(w.hour.sum, 16);
  EXPECT_EQ(w.day.sum, 16);
  EXPECT_DOUBLE_EQ(w.minute.tps, 16.0 / 4);  // the broker is 4 s old
  EXPECT_DOUBLE_EQ(w.minute.avgpt, 16.0 / 3);  // messages per request
  KeyedStats::Windows bytes = find(k, 4, "T", Series::size);
  EXPECT_EQ(bytes.minute.sum, 1600);
  EXPECT_DOUBLE_EQ(bytes.day.avgpt, 1600.0 / 3);
  EXPECT_FALSE(k.find(at_s(4), "U", Series::nums).has_value());

  // Within the first second the rate divides by 1 s, not by the fraction.
  KeyedStats young(at_s(0), 16);
  young.add(at_s(0.25), "T", 10, 1000);
  EXPECT_DOUBLE_EQ(find(young, 0.5, "T").minute.tps, 10.0);
}

TEST(KeyedStatsTest, WindowsForgetWhatIsOlderThanTheirRing) {
  KeyedStats k(at_s(0), 16);
  k.add(at_s(5), "T", 7, 70);  // minute bucket 0, hour bucket 0, day bucket 0
  // The minute window at 59 s still covers bucket 0 (buckets 0..5); at 60 s it starts at 10 s.
  EXPECT_EQ(find(k, 59, "T").minute.sum, 7);
  EXPECT_EQ(find(k, 60, "T").minute.sum, 0);
  EXPECT_EQ(find(k, 60, "T").hour.sum, 7);
  EXPECT_DOUBLE_EQ(find(k, 60, "T").hour.tps, 7.0 / 60);
  // The hour window: 10-minute buckets; gone at 60 min.
  EXPECT_EQ(find(k, 59 * 60, "T").hour.sum, 7);
  EXPECT_EQ(find(k, kHour, "T").hour.sum, 0);
  EXPECT_EQ(find(k, kHour, "T").day.sum, 7);
  // The day window: 1-hour buckets; gone at 24 h.
  EXPECT_EQ(find(k, 23.9 * kHour, "T").day.sum, 7);
  EXPECT_DOUBLE_EQ(find(k, 23.9 * kHour, "T").day.tps, 7.0 / (23.9 * kHour));
  EXPECT_EQ(find(k, 24 * kHour, "T").day.sum, 0);
  EXPECT_EQ(find(k, 24 * kHour, "T").day.avgpt, 0.0);  // no request in the window

  // A slot reused by a later bucket holds only the later bucket's counts.
  k.add(at_s(65), "T", 2, 20);  // minute bucket 6: bucket 0's slot
  KeyedStats::Windows w = find(k, 66, "T");
  EXPECT_EQ(w.minute.sum, 2);
  EXPECT_DOUBLE_EQ(w.minute.tps, 2.0 / 56);  // from the start of bucket 1 (10 s) to 66 s
  EXPECT_EQ(w.hour.sum, 9);
  // Buckets skipped between two adds are empty, not left over from a ring ago.
  k.add(at_s(95), "T", 1, 10);  // minute bucket 9
  EXPECT_EQ(find(k, 96, "T").minute.sum, 3);  // buckets 4..9: 6 and 9
  k.add(at_s(30 * kHour), "T", 4, 40);
  w = find(k, 30 * kHour, "T");
  EXPECT_EQ(w.minute.sum, 4);
  EXPECT_EQ(w.hour.sum, 4);
  EXPECT_EQ(w.day.sum, 4);
}

TEST(KeyedStatsTest, AFullSetEvictsTheKeyCountedLeastRecently) {
  KeyedStats k(at_s(0), 3);
  k.add(at_s(1), "A", 1, 1);
  k.add(at_s(2), "B", 1, 1);
  k.add(at_s(3), "C", 1, 1);
  k.add(at_s(4), "A", 1, 1);  // A is now the most recent; B the least
  EXPECT_EQ(k.size(), 3u);
  EXPECT_EQ(k.evicted(), 0);
  k.add(at_s(5), "D", 1, 1);
  EXPECT_EQ(k.size(), 3u);
  EXPECT_EQ(k.evicted(), 1);
  EXPECT_FALSE(k.find(at_s(5), "B", Series::nums).has_value());
  EXPECT_EQ(find(k, 5, "A").minute.sum, 2);
  EXPECT_EQ(find(k, 5, "C").minute.sum, 1);
  EXPECT_EQ(find(k, 5, "D").minute.sum, 1);
  k.add(at_s(6), "E", 1, 1);  // then C
  EXPECT_FALSE(k.find(at_s(6), "C", Series::nums).has_value());
  EXPECT_EQ(k.evicted(), 2);
  // An evicted key comes back counted from zero.
  k.add(at_s(7), "B", 5, 5);
  EXPECT_EQ(find(k, 7, "B").minute.sum, 5);
  EXPECT_FALSE(k.find(at_s(7), "A", Series::nums).has_value());
  EXPECT_EQ(k.size(), k.keys_max());

  // A set of one key: every new key replaces it.
  KeyedStats one(at_s(0), 1);
  one.add(at_s(1), "X", 1, 1);
  one.add(at_s(1), "X", 1, 1);
  one.add(at_s(2), "Y", 1, 1);
  EXPECT_FALSE(one.find(at_s(2), "X", Series::nums).has_value());
  EXPECT_EQ(find(one, 2, "Y").minute.sum, 1);
  EXPECT_EQ(one.evicted(), 1);
}

}  // namespace
}  // namespace ferry::broker
