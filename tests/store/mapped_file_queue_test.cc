// MappedFileQueue: naming, roll-over, load validation, find, truncation, removal, flush,
// pre-allocation, views.
#include <gtest/gtest.h>

#include "store/file_names.h"
#include "store/mapped_file_queue.h"
#include "tests/store/one_node.h"

namespace ferry::store {
namespace {

using testing::OneNode;

std::vector<std::uint8_t> filled(std::size_t n, std::uint8_t v) { return std::vector<std::uint8_t>(n, v); }

TEST(FileNames, TwentyDigitsRoundTrip) {
  EXPECT_EQ(offset_file_name(0), "00000000000000000000");
  EXPECT_EQ(offset_file_name(1073741824), "00000000001073741824");
  EXPECT_EQ(parse_offset_file_name("00000000001073741824"), 1073741824);
  EXPECT_FALSE(parse_offset_file_name("0000000000107374182"));   // 19 digits
  EXPECT_FALSE(parse_offset_file_name("0000000000107374182x"));
  EXPECT_FALSE(parse_offset_file_name("99999999999999999999"));  // beyond int64
}

TEST(MappedFileQueue, AppendsRollsAndFinds) {
  OneNode rt;
  MappedFileQueue q(rt.fs(), "commitlog", 100);
  ASSERT_TRUE(q.load().ok());
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.min_offset(), 0);
  EXPECT_EQ(q.max_offset(), 0);
  for (int i = 0; i < 5; ++i) {
    auto f = q.file_for_append();
    ASSERT_TRUE(f.ok());
    const auto data = filled(60, static_cast<std::uint8_t>(i + 1));
    const std::int64_t n = std::min<std::int64_t>(60, (*f)->remaining());
    ASSERT_TRUE((*f)->append(Bytes(data.data(), static_cast<std::size_t>(n))).ok());
  }
  // 60, 40 (fills file 0), 60, 40 (fills file 1), 60
  EXPECT_EQ(q.file_count(), 3u);
  EXPECT_EQ(q.max_offset(), 260);
  EXPECT_TRUE(rt.fs().exists("commitlog/00000000000000000100"));
  EXPECT_TRUE(rt.fs().exists("commitlog/00000000000000000200"));
  EXPECT_EQ(q.find(0)->start_offset(), 0);
  EXPECT_EQ(q.find(199)->start_offset(), 100);
  EXPECT_EQ(q.find(250)->start_offset(), 200);
  EXPECT_EQ(q.find(300), nullptr);
  EXPECT_EQ(q.find(-1), nullptr);
  auto v = q.find(150)->view(50, 1000);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->size(), 50u) << "a view is clipped to the write position";
  EXPECT_EQ(v->bytes()[0], 3);
}

TEST(MappedFileQueue, LoadValidatesNamesContiguityAndSizes) {
  OneNode rt;
  FileSystem& fs = rt.fs();
  {
    MappedFileQueue q(fs, "cl", 64);
    ASSERT_TRUE(q.load().ok());
    for (int i = 0; i < 3; ++i) {
      auto f = q.file_for_append();
      ASSERT_TRUE(f.ok());
      const auto data = filled(64, 7);
      ASSERT_TRUE((*f)->append(data).ok());
    }
  }
  {
    MappedFileQueue q(fs, "cl", 64);
    ASSERT_TRUE(q.load().ok());
    EXPECT_EQ(q.file_count(), 3u);
    EXPECT_EQ(q.min_offset(), 0);
    EXPECT_EQ(q.max_offset(), 192) << "loaded segments count as fully written";
  }
  // A gap.
  rt.create_file("cl/00000000000000000320", filled(64, 0));
  {
    MappedFileQueue q(fs, "cl", 64);
    auto st = q.load();
    ASSERT_FALSE(st.ok());
    EXPECT_TRUE(st.error().is(Errc::corrupt));
    EXPECT_NE(st.error().detail.find("00000000000000000320"), std::string::npos) << st.error().detail;
  }
  rt.remove_file("cl/00000000000000000320");
  // A short segment (its unsynced growth lost in a crash) is grown again; a long one is corrupt.
  rt.resize_file("cl/00000000000000000064", 10);
  rt.resize_file("cl/00000000000000000128", 10);
  {
    MappedFileQueue q(fs, "cl", 64);
    ASSERT_TRUE(q.load().ok());
    EXPECT_EQ(rt.bytes("cl/00000000000000000064").size(), 64u);
    EXPECT_EQ(rt.bytes("cl/00000000000000000128").size(), 64u);
  }
  rt.resize_file("cl/00000000000000000064", 65);
  {
    MappedFileQueue q(fs, "cl", 64);
    auto st = q.load();
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.error().detail.find("size 65"), std::string::npos) << st.error().detail;
  }
  rt.resize_file("cl/00000000000000000064", 64);
  // A foreign name.
  rt.create_file("cl/junk.tmp", filled(64, 0));
  {
    MappedFileQueue q(fs, "cl", 64);
    auto st = q.load();
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.error().detail.find("junk.tmp"), std::string::npos);
  }
}

TEST(MappedFileQueue, TruncateZeroesTheTailAndRemovesLaterSegments) {
  OneNode rt;
  MappedFileQueue q(rt.fs(), "cl", 64);
  ASSERT_TRUE(q.load().ok());
  for (int i = 0; i < 3; ++i) {
    auto f = q.file_for_append();
    ASSERT_TRUE(f.ok());
    ASSERT_TRUE((*f)->append(filled(64, 9)).ok());
  }
  ASSERT_TRUE(q.truncate(80).ok());
  EXPECT_EQ(q.file_count(), 2u);
  EXPECT_EQ(q.max_offset(), 80);
  EXPECT_FALSE(rt.fs().exists("cl/00000000000000000128"));
  const auto& bytes = rt.bytes("cl/00000000000000000064");
  EXPECT_EQ(bytes[15], 9);
  EXPECT_EQ(bytes[16], 0) << "bytes past the truncation point are zeroed";
  EXPECT_EQ(bytes[63], 0);
  // Appending continues at the truncation point.
  auto f = q.file_for_append();
  ASSERT_TRUE(f.ok());
  EXPECT_EQ((*f)->start_offset(), 64);
  EXPECT_EQ((*f)->write_position(), 16);
  ASSERT_TRUE(q.truncate(64).ok());
  EXPECT_EQ(q.file_count(), 1u);
  EXPECT_EQ(q.max_offset(), 64);
}

TEST(MappedFileQueue, RemovesOldSegmentsButNeverTheLast) {
  OneNode rt;
  MappedFileQueue q(rt.fs(), "cl", 64);
  ASSERT_TRUE(q.load().ok());
  for (int i = 0; i < 4; ++i) {
    auto f = q.file_for_append();
    ASSERT_TRUE(f.ok());
    ASSERT_TRUE((*f)->append(filled(64, 1)).ok());
  }
  auto removed = q.remove_files_before(130);
  ASSERT_TRUE(removed.ok());
  EXPECT_EQ(*removed, 2u);
  EXPECT_EQ(q.min_offset(), 128);
  EXPECT_EQ(q.find(100), nullptr);
  removed = q.remove_files_before(1'000'000);
  ASSERT_TRUE(removed.ok());
  EXPECT_EQ(*removed, 1u);
  EXPECT_EQ(q.file_count(), 1u);
  EXPECT_EQ(q.min_offset(), 192);
}

TEST(MappedFileQueue, FlushTracksDurableOffset) {
  OneNode rt;
  MappedFileQueue q(rt.fs(), "cl", 64);
  ASSERT_TRUE(q.load().ok());
  auto f = q.file_for_append();
  ASSERT_TRUE(f.ok());
  ASSERT_TRUE((*f)->append(filled(64, 1)).ok());
  f = q.file_for_append();
  ASSERT_TRUE(f.ok());
  ASSERT_TRUE((*f)->append(filled(10, 1)).ok());
  EXPECT_EQ(q.flushed_offset(), 0);
  ASSERT_TRUE(rt.run(q.flush()).ok());
  EXPECT_EQ(q.flushed_offset(), 74);
  EXPECT_EQ(rt.disk_stats().syncs, 2u);
  ASSERT_TRUE(rt.run(q.flush()).ok());
  EXPECT_EQ(rt.disk_stats().syncs, 2u) << "nothing new to flush";
  ASSERT_TRUE((*f)->append(filled(5, 1)).ok());
  rt.set_syncs_fail(true);
  auto st = rt.run(q.flush());
  EXPECT_FALSE(st.ok());
  EXPECT_EQ(q.flushed_offset(), 74);
}

TEST(MappedFileQueue, PreallocatedSegmentIsUsedOnRollOver) {
  OneNode rt;
  MappedFileQueue q(rt.fs(), "cl", 64);
  ASSERT_TRUE(q.load().ok());
  auto f = q.file_for_append();
  ASSERT_TRUE(f.ok());
  ASSERT_TRUE(rt.run(q.preallocate_next()).ok());
  EXPECT_TRUE(rt.fs().exists("cl/00000000000000000064"));
  ASSERT_TRUE((*f)->append(filled(64, 1)).ok());
  const auto writes_before = rt.disk_stats().writes;
  f = q.file_for_append();
  ASSERT_TRUE(f.ok());
  EXPECT_EQ((*f)->start_offset(), 64);
  EXPECT_EQ(rt.disk_stats().writes, writes_before);
  // An orphaned pre-allocation is removed by truncation, keeping the directory contiguous.
  ASSERT_TRUE(rt.run(q.preallocate_next()).ok());
  EXPECT_TRUE(rt.fs().exists("cl/00000000000000000128"));
  ASSERT_TRUE(q.truncate(10).ok());
  EXPECT_FALSE(rt.fs().exists("cl/00000000000000000128"));
  EXPECT_FALSE(rt.fs().exists("cl/00000000000000000064"));
  MappedFileQueue again(rt.fs(), "cl", 64);
  EXPECT_TRUE(again.load().ok());
}

}  // namespace
}  // namespace ferry::store
