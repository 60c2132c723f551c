// EpochCache (controller mode's epoch file): appending epochs, the consistent point a rejoining
// replica truncates to, truncation, and RocketMQ's epochFileCheckpoint text format.
#include "store/ha/epoch_cache.h"

#include <gtest/gtest.h>

namespace ferry::store {
namespace {

PhysicalOffset at(std::int64_t v) { return PhysicalOffset(v); }

TEST(EpochCache, AppendNeedsAHigherEpochAndReplacesAnEpochThatWroteNothing) {
  EpochCache c;
  EXPECT_EQ(c.last_epoch(), -1);
  EXPECT_TRUE(c.append(1, at(0)));
  EXPECT_TRUE(c.append(2, at(100)));
  EXPECT_FALSE(c.append(2, at(200))) << "same epoch";
  EXPECT_FALSE(c.append(1, at(200))) << "older epoch";
  EXPECT_FALSE(c.append(3, at(50))) << "starts before the last epoch";
  EXPECT_TRUE(c.append(4, at(100))) << "epoch 2 wrote nothing: replaced";
  EXPECT_EQ(c.entries(), (std::vector<EpochEntry>{{1, at(0)}, {4, at(100)}}));
  EXPECT_EQ(c.end_of(0, at(500)), at(100));
  EXPECT_EQ(c.end_of(1, at(500)), at(500));
  EXPECT_EQ(c.entry_at(at(99))->epoch, 1);
  EXPECT_EQ(c.entry_at(at(100))->epoch, 4);
  EXPECT_EQ(c.entry_at(at(10'000))->epoch, 4);
}

TEST(EpochCache, TheConsistentPointIsTheEndOfTheNewestSharedEpoch) {
  const EpochCache master({{1, at(0)}, {3, at(120)}});
  // The same history, the replica behind: everything it has.
  EXPECT_EQ(EpochCache({{1, at(0)}, {3, at(120)}}).consistent_point(at(150), master, at(200)), at(150));
  // An old master that wrote epoch 2 past what the group kept: back to the end of epoch 1 as the
  // new master saw it.
  const EpochCache old_master({{1, at(0)}, {2, at(100)}});
  EXPECT_EQ(old_master.consistent_point(at(180), master, at(200)), at(100));
  // Epoch 1 ended earlier on the master than the replica believed.
  EXPECT_EQ(EpochCache({{1, at(0)}}).consistent_point(at(180), master, at(200)), at(120));
  // The same epoch number over different bytes is not shared; nothing shared at all: none.
  EXPECT_EQ(EpochCache({{1, at(10)}}).consistent_point(at(50), master, at(200)), std::nullopt);
  EXPECT_EQ(EpochCache({{5, at(0)}}).consistent_point(at(50), master, at(200)), std::nullopt);
}

TEST(EpochCache, Truncation) {
  EpochCache c({{1, at(0)}, {2, at(100)}, {5, at(300)}});
  c.truncate_from_offset(at(300));
  EXPECT_EQ(c.last_epoch(), 2);
  c.truncate_from_offset(at(150));
  EXPECT_EQ(c.last_epoch(), 2) << "epoch 2 starts before 150: it stays, now ending there";
  EpochCache e({{1, at(0)}, {2, at(100)}, {5, at(300)}});
  e.truncate_from_epoch(2);
  EXPECT_EQ(e.entries(), (std::vector<EpochEntry>{{1, at(0)}}));
  EpochCache h({{1, at(0)}, {2, at(100)}, {5, at(300)}});
  h.truncate_before_offset(at(200));
  EXPECT_EQ(h.entries(), (std::vector<EpochEntry>{{2, at(100)}, {5, at(300)}}));
  h.truncate_before_offset(at(10'000));
  EXPECT_EQ(h.entries(), (std::vector<EpochEntry>{{5, at(300)}})) << "the last entry always stays";
}

// The CRC below is java.util.zip.CRC32 of "1-0\n3-4096\n" & 0x7FFFFFFF, computed outside Ferry
// (zlib's crc32, the same polynomial): 1131518206.
TEST(EpochCacheFile, RocketMqsCheckpointFormat) {
  const EpochCache c({{1, at(0)}, {3, at(4096)}});
  EXPECT_EQ(c.encode(), "2\n1131518206\n1-0\n3-4096\n");
  auto back = EpochCache::decode("2\n1131518206\n1-0\n3-4096\n");
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(back->entries(), c.entries());
  EXPECT_TRUE(EpochCache::decode("2\r\n0\r\n1-0\r\n3-4096\r\n").ok()) << "CRC 0 is unchecked; CRLF lines";
  EXPECT_EQ(EpochCache().encode(), "0\n0\n");
}

TEST(EpochCacheFile, DamageIsRefusedWithWhatDidNotMatch) {
  auto why = [](std::string_view text) {
    auto r = EpochCache::decode(text);
    EXPECT_FALSE(r.ok()) << text;
    return r.ok() ? std::string() : r.error().detail;
  };
  EXPECT_EQ(why("3\n1131518206\n1-0\n3-4096\n"), "epoch file: 3 entries expected, 2 found");
  EXPECT_EQ(why("2\n1131518207\n1-0\n3-4096\n"), "epoch file: CRC 1131518207 does not match the entries (1131518206)");
  EXPECT_EQ(why("1\n0\n1:0\n"), "epoch file: line '1:0' is not <epoch>-<start offset>");
  EXPECT_EQ(why("2\n0\n3-0\n1-4096\n"), "epoch file: entry 1-4096 is out of order");
  EXPECT_EQ(why(""), "epoch file: the first two lines are not the entry count and CRC");
  EXPECT_EQ(why("x\n"), "epoch file: the first two lines are not the entry count and CRC");
}

}  // namespace
}  // namespace ferry::store
