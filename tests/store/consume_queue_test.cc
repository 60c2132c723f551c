// ConsumeQueue: unit format, dense appends, reads, recovery scan, truncation past the log end,
// min-offset correction, removal, search by time, queues that start past 0.
#include <gtest/gtest.h>

#include <map>

#include "store/consume_queue.h"
#include "tests/store/one_node.h"

namespace ferry::store {
namespace {

using testing::OneNode;

cq::Unit unit(std::int64_t offset, std::int32_t size = 100, std::int64_t tags = 7) {
  return cq::Unit{PhysicalOffset(offset), size, tags};
}

TEST(ConsumeQueueFormat, UnitIsTwentyBigEndianBytes) {
  std::array<std::uint8_t, cq::kUnitBytes> buf{};
  cq::encode_unit(cq::Unit{PhysicalOffset(0x0102030405060708), 0x0A0B0C0D, -2}, buf.data());
  const std::array<std::uint8_t, 20> expected = {1, 2, 3, 4, 5, 6, 7, 8, 0x0A, 0x0B, 0x0C, 0x0D,
                                                 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE};
  EXPECT_EQ(buf, expected);
  const cq::Unit back = cq::decode_unit(buf.data());
  EXPECT_EQ(back.commit_log_offset.value(), 0x0102030405060708);
  EXPECT_EQ(back.size, 0x0A0B0C0D);
  EXPECT_EQ(back.tags_code, -2);
  EXPECT_TRUE(cq::decode_unit(std::array<std::uint8_t, 20>{}.data()).is_unwritten());
  EXPECT_TRUE(cq::pre_blank_unit().is_pre_blank());
  EXPECT_FALSE(cq::pre_blank_unit().is_message());
}

TEST(ConsumeQueue, PathIsTopicThenQueueIdThenStartOffset) {
  OneNode rt;
  ConsumeQueue q(rt.fs(), "store", "TopicA", QueueId(3), 4);
  ASSERT_TRUE(q.load_and_recover().ok());
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(q.append(QueueOffset(i), unit(i * 100)).ok());
  EXPECT_TRUE(rt.fs().exists("store/consumequeue/TopicA/3/00000000000000000000"));
  EXPECT_TRUE(rt.fs().exists("store/consumequeue/TopicA/3/00000000000000000080"));
  EXPECT_EQ(rt.bytes("store/consumequeue/TopicA/3/00000000000000000000").size(), 80u);
}

TEST(ConsumeQueue, AppendsDenselyAndReads) {
  OneNode rt;
  ConsumeQueue q(rt.fs(), "s", "T", QueueId(0), 4);
  ASSERT_TRUE(q.load_and_recover().ok());
  EXPECT_EQ(q.min_offset().value(), 0);
  EXPECT_EQ(q.max_offset().value(), 0);
  EXPECT_FALSE(q.last_record_end().has_value());
  for (int i = 0; i < 10; ++i) {
    auto r = q.append(QueueOffset(i), unit(i * 100, 100, i));
    ASSERT_TRUE(r.ok());
    EXPECT_TRUE(*r);
  }
  EXPECT_EQ(q.max_offset().value(), 10);
  EXPECT_EQ(q.last_record_end()->value(), 1000);
  auto u = q.read(QueueOffset(6));
  ASSERT_TRUE(u.ok());
  EXPECT_EQ(*u, unit(600, 100, 6));
  // A batch view stops at the end of its file (4 units per file).
  auto v = q.read_units(QueueOffset(5), 10);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->size(), 3 * cq::kUnitBytes);
  EXPECT_EQ(cq::decode_unit(v->bytes().data() + 20), unit(600, 100, 6));
  // Replaying a unit already there is reported, not written twice.
  auto again = q.append(QueueOffset(3), unit(300, 100, 3));
  ASSERT_TRUE(again.ok());
  EXPECT_FALSE(*again);
  EXPECT_EQ(q.max_offset().value(), 10);
}

TEST(ConsumeQueueDeathTest, GapsAreBugs) {
  OneNode rt;
  ConsumeQueue q(rt.fs(), "s", "T", QueueId(0), 4);
  ASSERT_TRUE(q.load_and_recover().ok());
  ASSERT_TRUE(q.append(QueueOffset(0), unit(0)).ok());
  EXPECT_DEATH((void)q.append(QueueOffset(2), unit(100)), "gap");
}

TEST(ConsumeQueue, AConflictingReplayCutsTheQueueThere) {
  // After a crash a unit may be torn (its halves in different sectors); the log wins.
  OneNode rt;
  ConsumeQueue q(rt.fs(), "s", "T", QueueId(0), 4);
  ASSERT_TRUE(q.load_and_recover().ok());
  for (int i = 0; i < 6; ++i) ASSERT_TRUE(q.append(QueueOffset(i), unit(i * 100)).ok());
  EXPECT_FALSE(*q.append(QueueOffset(1), unit(100))) << "the same unit: a plain replay";
  EXPECT_TRUE(*q.append(QueueOffset(2), unit(555)));
  EXPECT_EQ(q.max_offset().value(), 3);
  EXPECT_EQ(q.read(QueueOffset(2))->commit_log_offset.value(), 555);
  EXPECT_EQ(q.read(QueueOffset(1))->commit_log_offset.value(), 100);
  EXPECT_TRUE(*q.append(QueueOffset(0), unit(7)));
  EXPECT_EQ(q.max_offset().value(), 1);
  EXPECT_EQ(q.min_offset().value(), 0);
}

TEST(ConsumeQueue, RecoversTheEndAfterReopen) {
  OneNode rt;
  {
    ConsumeQueue q(rt.fs(), "s", "T", QueueId(1), 4);
    ASSERT_TRUE(q.load_and_recover().ok());
    for (int i = 0; i < 6; ++i) ASSERT_TRUE(q.append(QueueOffset(i), unit(i * 100)).ok());
  }
  ConsumeQueue q(rt.fs(), "s", "T", QueueId(1), 4);
  ASSERT_TRUE(q.load_and_recover().ok());
  EXPECT_EQ(q.min_offset().value(), 0);
  EXPECT_EQ(q.max_offset().value(), 6);
  EXPECT_EQ(q.last_record_end()->value(), 600);
  ASSERT_TRUE(q.append(QueueOffset(6), unit(600)).ok());
  EXPECT_EQ(q.max_offset().value(), 7);
}

TEST(ConsumeQueue, TruncateDirtyDropsUnitsPastTheLogEnd) {
  OneNode rt;
  ConsumeQueue q(rt.fs(), "s", "T", QueueId(0), 4);
  ASSERT_TRUE(q.load_and_recover().ok());
  for (int i = 0; i < 9; ++i) ASSERT_TRUE(q.append(QueueOffset(i), unit(i * 100)).ok());
  ASSERT_TRUE(q.truncate_dirty(PhysicalOffset(450)).ok());  // record 4 ends at 500
  EXPECT_EQ(q.max_offset().value(), 4);
  EXPECT_EQ(q.files().file_count(), 1u);
  ASSERT_TRUE(q.append(QueueOffset(4), unit(400)).ok());
  ASSERT_TRUE(q.truncate_dirty(PhysicalOffset(0)).ok());
  EXPECT_EQ(q.max_offset().value(), 0);
  EXPECT_EQ(q.min_offset().value(), 0);
}

TEST(ConsumeQueue, CorrectsMinOffsetAndRemovesOldFiles) {
  OneNode rt;
  ConsumeQueue q(rt.fs(), "s", "T", QueueId(0), 4);
  ASSERT_TRUE(q.load_and_recover().ok());
  for (int i = 0; i < 10; ++i) ASSERT_TRUE(q.append(QueueOffset(i), unit(i * 100)).ok());
  ASSERT_TRUE(q.correct_min_offset(PhysicalOffset(250)).ok());
  EXPECT_EQ(q.min_offset().value(), 3);
  auto removed = q.remove_files_before(PhysicalOffset(850));
  ASSERT_TRUE(removed.ok());
  EXPECT_EQ(*removed, 2u) << "files [0,4) and [4,8) hold only records below 850";
  EXPECT_EQ(q.min_offset().value(), 9);
  EXPECT_EQ(q.max_offset().value(), 10);
}

TEST(ConsumeQueue, StartsPastZeroWithPreBlanks) {
  OneNode rt;
  {
    ConsumeQueue q(rt.fs(), "s", "T", QueueId(0), 4);
    ASSERT_TRUE(q.load_and_recover().ok());
    ASSERT_TRUE(q.append(QueueOffset(6), unit(5000)).ok());
    EXPECT_EQ(q.min_offset().value(), 6);
    EXPECT_EQ(q.max_offset().value(), 7);
    EXPECT_TRUE(rt.fs().exists("s/consumequeue/T/0/00000000000000000080"));
  }
  ConsumeQueue q(rt.fs(), "s", "T", QueueId(0), 4);
  ASSERT_TRUE(q.load_and_recover().ok());
  EXPECT_EQ(q.min_offset().value(), 6);
  EXPECT_EQ(q.max_offset().value(), 7);
}

TEST(ConsumeQueue, OffsetByTimeIsTheFirstMessageAtOrAfter) {
  OneNode rt;
  ConsumeQueue q(rt.fs(), "s", "T", QueueId(0), 4);
  ASSERT_TRUE(q.load_and_recover().ok());
  std::map<std::int64_t, WallMs> times;
  for (int i = 0; i < 9; ++i) {
    ASSERT_TRUE(q.append(QueueOffset(i), unit(i * 100)).ok());
    times[i * 100] = 1000 + 10 * (i / 2);  // pairs share a timestamp: 1000 1000 1010 1010 ...
  }
  StoreTimeLookup lookup = [&](PhysicalOffset off, std::int32_t) -> Result<WallMs> {
    return times.at(off.value());
  };
  EXPECT_EQ(q.offset_by_time(0, lookup)->value(), 0);
  EXPECT_EQ(q.offset_by_time(1000, lookup)->value(), 0);
  EXPECT_EQ(q.offset_by_time(1001, lookup)->value(), 2);
  EXPECT_EQ(q.offset_by_time(1010, lookup)->value(), 2);
  EXPECT_EQ(q.offset_by_time(1040, lookup)->value(), 8);
  EXPECT_EQ(q.offset_by_time(1041, lookup)->value(), 9);
  StoreTimeLookup failing = [](PhysicalOffset, std::int32_t) -> Result<WallMs> {
    return Error(Errc::not_found, "gone");
  };
  EXPECT_FALSE(q.offset_by_time(1000, failing).ok());
}

}  // namespace
}  // namespace ferry::store
