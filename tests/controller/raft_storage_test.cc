// RaftStorage on a simulated disk: what load() gives back after writes, syncs, power losses and
// damage; a torn tail is dropped, damage before good records is refused, a torn term slot falls
// back to the other.
#include "controller/raft_storage.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "sim/node.h"
#include "sim/world.h"
#include "tests/support/sim_test_util.h"

namespace ferry::controller {
namespace {

using sim::World;

constexpr const char* kDir = "raft";

class RaftStorageTest : public ::testing::Test {
 protected:
  RaftStorageTest() : world_(sim::testing::test_options(7)), node_(world_.add_node("controller")) {}

  Runtime& rt() { return world_.node(node_); }
  std::unique_ptr<RaftStorage> open() {
    auto s = RaftStorage::open(rt().fs(), kDir);
    EXPECT_TRUE(s.ok()) << s.error().to_string();
    return s.ok() ? std::move(*s) : nullptr;
  }
  static Task<Status> sync(RaftStorage* s) { co_return co_await s->sync(); }
  void synced(RaftStorage& s) {
    auto r = world_.run_task(node_, sync(&s), 5s);
    ASSERT_TRUE(r.ok());
    ASSERT_TRUE(r.value->ok()) << r.value->error().to_string();
  }
  void append(RaftStorage& s, std::uint64_t index, std::uint64_t term, const std::string& data) {
    Status a = s.append(index, term, 1, as_bytes(data));
    ASSERT_TRUE(a.ok()) << a.error().to_string();
  }
  // Rewrites one byte of a file of the node's disk, durably.
  void damage(const std::string& file, std::uint64_t offset) {
    auto f = rt().fs().open(std::string(kDir) + "/" + file, {});
    ASSERT_TRUE(f.ok());
    std::uint8_t b = 0;
    ASSERT_TRUE((*f)->pread(offset, MutableBytes(&b, 1)).ok());
    b ^= 0x40;
    ASSERT_TRUE((*f)->pwrite(offset, Bytes(&b, 1)).ok());
    auto r = world_.run_task(node_, sync_file(std::move(*f)), 5s);
    ASSERT_TRUE(r.ok());
  }
  static Task<Status> sync_file(std::unique_ptr<File> f) { co_return co_await f->sync(); }

  World world_;
  sim::NodeId node_;
};

TEST_F(RaftStorageTest, ANewServerLoadsNothing) {
  auto s = open();
  auto loaded = s->load();
  ASSERT_TRUE(loaded.ok()) << loaded.error().to_string();
  EXPECT_EQ(loaded->term, 0u);
  EXPECT_EQ(loaded->voted_for, 0u);
  EXPECT_TRUE(loaded->entries.empty());
}

TEST_F(RaftStorageTest, SyncedTermVoteAndEntriesSurviveAPowerLossAndTheUnsyncedDoNot) {
  {
    auto s = open();
    ASSERT_TRUE(s->load().ok());
    ASSERT_TRUE(s->write_meta(3, 2).ok());
    append(*s, 1, 1, "conf");
    append(*s, 2, 3, "alpha");
    synced(*s);
    ASSERT_TRUE(s->write_meta(4, 0).ok());
    append(*s, 3, 4, "never synced");
  }
  world_.power_off(node_);
  world_.start(node_);
  auto s = open();
  auto loaded = s->load();
  ASSERT_TRUE(loaded.ok()) << loaded.error().to_string();
  EXPECT_EQ(loaded->term, 3u);
  EXPECT_EQ(loaded->voted_for, 2u);
  ASSERT_EQ(loaded->entries.size(), 2u);
  EXPECT_EQ(loaded->entries[1].term, 3u);
  EXPECT_EQ(std::string(as_text(loaded->entries[1].data)), "alpha");
  EXPECT_EQ(s->last_index(), 2u);
}

TEST_F(RaftStorageTest, TruncationDropsTheSuffixAndAppendsContinueAfterIt) {
  auto s = open();
  ASSERT_TRUE(s->load().ok());
  for (std::uint64_t i = 1; i <= 5; ++i) append(*s, i, 1, fmt::format("e{}", i));
  ASSERT_TRUE(s->truncate_from(3).ok());
  append(*s, 3, 2, "new3");
  synced(*s);
  auto again = open();
  auto loaded = again->load();
  ASSERT_TRUE(loaded.ok()) << loaded.error().to_string();
  ASSERT_EQ(loaded->entries.size(), 3u);
  EXPECT_EQ(std::string(as_text(loaded->entries[2].data)), "new3");
  EXPECT_EQ(loaded->entries[2].term, 2u);
}

TEST_F(RaftStorageTest, ATornLastRecordIsDroppedAndSaidSo) {
  {
    auto s = open();
    ASSERT_TRUE(s->load().ok());
    append(*s, 1, 1, "one");
    append(*s, 2, 1, "two");
    synced(*s);
  }
  auto f = rt().fs().open(std::string(kDir) + "/raft-log", {});
  ASSERT_TRUE(f.ok());
  const std::uint64_t size = (*f)->size();
  ASSERT_TRUE((*f)->truncate(size - 2).ok());
  auto s = open();
  auto loaded = s->load();
  ASSERT_TRUE(loaded.ok()) << loaded.error().to_string();
  EXPECT_EQ(loaded->entries.size(), 1u);
  EXPECT_EQ(loaded->dropped_tail_bytes, kRaftRecordHeaderBytes + 3 - 2);
  append(*s, 2, 2, "two again");  // the log goes on from the cut
}

TEST_F(RaftStorageTest, DamageBeforeAGoodRecordIsRefusedNotDropped) {
  {
    auto s = open();
    ASSERT_TRUE(s->load().ok());
    append(*s, 1, 1, "one");
    append(*s, 2, 1, "two");
    append(*s, 3, 1, "three");
    synced(*s);
  }
  damage("raft-log", kRaftRecordHeaderBytes + 3 + kRaftRecordHeaderBytes + 1);  // inside entry 2's data
  auto s = open();
  auto loaded = s->load();
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().code, Errc::corrupt);
  EXPECT_NE(loaded.error().detail.find("entry 2"), std::string::npos) << loaded.error().detail;
}

TEST_F(RaftStorageTest, ADamagedTermSlotFallsBackToTheOtherAndBothDamagedIsRefused) {
  {
    auto s = open();
    ASSERT_TRUE(s->load().ok());
    ASSERT_TRUE(s->write_meta(5, 1).ok());  // slot 1
    ASSERT_TRUE(s->write_meta(6, 2).ok());  // slot 0
    synced(*s);
  }
  damage("raft-meta", 8);  // slot 0's term
  {
    auto s = open();
    auto loaded = s->load();
    ASSERT_TRUE(loaded.ok()) << loaded.error().to_string();
    EXPECT_EQ(loaded->term, 5u);
    EXPECT_EQ(loaded->voted_for, 1u);
  }
  damage("raft-meta", kRaftMetaSlotBytes + 8);
  auto s = open();
  auto loaded = s->load();
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.error().code, Errc::corrupt);
}

}  // namespace
}  // namespace ferry::controller
