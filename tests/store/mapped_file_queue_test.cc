// MappedFileQueue: naming, roll-over, load validation, find, truncation, removal, flush,
// pre-allocation, views.
#include <gtest/gtest.h>

#include "store/file_names.h"
#include "store/mapped_file_queue.h"
#include "store/test_runtime.h"

namespace ferry::store {
namespace {

using testing::TestRuntime;

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
  TestRuntime rt;
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
  TestRuntime rt;
  auto& fs = rt.mem_fs();
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
  fs.files["cl/00000000000000000320"] = std::make_shared<testing::MemFs::Data>(64, 0);
  {
    MappedFileQueue q(fs, "cl", 64);
    auto st = q.load();
    ASSERT_FALSE(st.ok());
    EXPECT_TRUE(st.error().is(Errc::corrupt));
    EXPECT_NE(st.error().detail.find("00000000000000000320"), std::string::npos) << st.error().detail;
  }
  fs.files.erase("cl/00000000000000000320");
  // A short segment (its unsynced growth lost in a crash) is grown again; a long one is corrupt.
  fs.files["cl/00000000000000000064"]->resize(10);
  fs.files["cl/00000000000000000128"]->resize(10);
  {
    MappedFileQueue q(fs, "cl", 64);
    ASSERT_TRUE(q.load().ok());
    EXPECT_EQ(fs.files["cl/00000000000000000064"]->size(), 64u);
    EXPECT_EQ(fs.files["cl/00000000000000000128"]->size(), 64u);
  }
  fs.files["cl/00000000000000000064"]->resize(65);
  {
    MappedFileQueue q(fs, "cl", 64);
    auto st = q.load();
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.error().detail.find("size 65"), std::string::npos) << st.error().detail;
  }
  fs.files["cl/00000000000000000064"]->resize(64);
  // A foreign name.
  fs.files["cl/junk.tmp"] = std::make_shared<testing::MemFs::Data>(64, 0);
  {
    MappedFileQueue q(fs, "cl", 64);
    auto st = q.load();
    ASSERT_FALSE(st.ok());
    EXPECT_NE(st.error().detail.find("junk.tmp"), std::string::npos);
  }
}

TEST(MappedFileQueue, TruncateZeroesTheTailAndRemovesLaterSegments) {
  TestRuntime rt;
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
  const auto& bytes = rt.mem_fs().bytes("cl/00000000000000000064");
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
  TestRuntime rt;
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
  TestRuntime rt;
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
  EXPECT_EQ(rt.mem_fs().syncs, 2u);
  ASSERT_TRUE(rt.run(q.flush()).ok());
  EXPECT_EQ(rt.mem_fs().syncs, 2u) << "nothing new to flush";
  ASSERT_TRUE((*f)->append(filled(5, 1)).ok());
  rt.mem_fs().fail_sync = true;
  auto st = rt.run(q.flush());
  EXPECT_FALSE(st.ok());
  EXPECT_EQ(q.flushed_offset(), 74);
}

TEST(MappedFileQueue, PreallocatedSegmentIsUsedOnRollOver) {
  TestRuntime rt;
  MappedFileQueue q(rt.fs(), "cl", 64);
  ASSERT_TRUE(q.load().ok());
  auto f = q.file_for_append();
  ASSERT_TRUE(f.ok());
  ASSERT_TRUE(rt.run(q.preallocate_next()).ok());
  EXPECT_TRUE(rt.fs().exists("cl/00000000000000000064"));
  ASSERT_TRUE((*f)->append(filled(64, 1)).ok());
  const auto writes_before = rt.mem_fs().writes;
  f = q.file_for_append();
  ASSERT_TRUE(f.ok());
  EXPECT_EQ((*f)->start_offset(), 64);
  EXPECT_EQ(rt.mem_fs().writes, writes_before);
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
