// CommitLog recovery tells a torn tail from corruption in the middle of the log, and leaves the
// latter to the operator (store/recover_mode.h): abort (the default) refuses to open and says
// where and what follows, truncate cuts and reports what it discarded, skip keeps every record
// after the damage (by offset, through the ConsumeQueues and the index) and loses only the
// damaged range. Corruption in an older file must not delete the newer files.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "store/dispatch_rules.h"
#include "tests/store/one_node.h"
#include "tests/store/store_fixture.h"

namespace ferry::store {
namespace {

using testing::OneNode;
using testing::TestMessage;

class RecoverModeTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(reopen().ok()); }
  void TearDown() override {
    rt_.kill();
    store_.reset();
  }
  Status reopen() {
    store_.reset();
    store_ = std::make_unique<MessageStore>(rt_.runtime(), config_);
    return rt_.run(store_->open());
  }
  void reopen_with(RecoverMode mode) {
    config_.recover_mode = mode;
    Status st = reopen();
    ASSERT_TRUE(st.ok()) << st.error().to_string();
  }
  static std::string body(int i) { return std::string(200, static_cast<char>('a' + i)); }
  // `n` messages of 200 bytes, keys k0..k{n-1}, all in queue T:0 (three to a 1 KiB file).
  void put_messages(int n) {
    for (int i = static_cast<int>(puts_.size()); n > 0; ++i, --n) {
      puts_.push_back(store_->put_message(TestMessage{.body = body(i)}.keys(fmt::format("k{}", i)).request()));
      ASSERT_EQ(puts_.back().status, PutStatus::ok);
    }
  }
  void clean_stop() { ASSERT_TRUE(rt_.run(store_->shutdown()).ok()); }
  static std::string file_of(PhysicalOffset at) { return fmt::format("store/commitlog/{:020d}", at.value() / 1024 * 1024); }
  // Flips a byte in the body of message `i` (its CRC fails).
  void flip_body_of(int i) {
    const PhysicalOffset at = puts_[static_cast<std::size_t>(i)].wrote_offset;
    rt_.bytes(file_of(at))[static_cast<std::size_t>(at.value() % 1024 + 120)] ^= 0x5A;
  }
  // The bodies readable through queue T:0, from its min to its max offset.
  std::vector<std::string> queue_bodies() {
    std::vector<std::string> out;
    QueueOffset at = store_->min_offset("T", QueueId(0));
    for (int pulls = 0; at < store_->max_offset("T", QueueId(0)) && pulls < 100; ++pulls) {
      GetMessageResult g = store_->get_messages("T", QueueId(0), at, 32, nullptr);
      for (const FileView& v : g.messages) out.push_back(testing::body_of(v));
      at = g.next_begin_offset;
    }
    return out;
  }
  std::vector<std::string> bodies_except(int n, int lost) {
    std::vector<std::string> out;
    for (int i = 0; i < n; ++i) {
      if (i != lost) out.push_back(body(i));
    }
    return out;
  }
  std::string body_at(PhysicalOffset at) {
    auto v = store_->message_at(at);
    return v.ok() ? testing::body_of(*v) : "(" + v.error().to_string() + ")";
  }

  OneNode rt_;
  StoreConfig config_ = testing::small_config();
  std::unique_ptr<MessageStore> store_;
  std::vector<PutResult> puts_;
};

// ---- torn tails: cut as before, in every mode -----------------------------------------------

TEST_F(RecoverModeTest, ATornLastRecordIsCutWithoutAskingTheOperator) {
  put_messages(5);
  clean_stop();
  flip_body_of(4);  // nothing valid after it
  reopen_with(RecoverMode::abort);
  const RecoveryReport& r = store_->recovery().commit_log;
  EXPECT_EQ(r.end, puts_[4].wrote_offset);
  EXPECT_NE(r.reason.find("CRC"), std::string::npos) << r.reason;
  EXPECT_EQ(r.discarded_records, 0);
  EXPECT_TRUE(r.skipped.empty());
  EXPECT_EQ(queue_bodies(), bodies_except(4, -1));
}

TEST_F(RecoverModeTest, DamagePastWhatTheCheckpointSaysWasSyncedIsATornTailAfterACrash) {
  put_messages(3);
  clean_stop();  // the checkpoint vouches for messages 0..2
  ASSERT_TRUE(reopen().ok());
  put_messages(3);
  store_.reset();  // crash: 3..5 were never synced, and a crash may keep unsynced writes out of order
  flip_body_of(3);
  reopen_with(RecoverMode::abort);
  EXPECT_FALSE(store_->recovery().clean_shutdown);
  const RecoveryReport& r = store_->recovery().commit_log;
  EXPECT_EQ(r.end, puts_[3].wrote_offset);
  EXPECT_EQ(r.discarded_records, 0);
  EXPECT_EQ(queue_bodies(), bodies_except(3, -1));
}

TEST_F(RecoverModeTest, ACopyOfARecordInsideALaterBodyIsNotTakenAsGoodData) {
  put_messages(7);  // 6 starts file 2048
  auto six = store_->message_at(puts_[6].wrote_offset);
  ASSERT_TRUE(six.ok());
  const std::string copy(reinterpret_cast<const char*>(six->bytes().data()), six->bytes().size());
  puts_.push_back(store_->put_message(TestMessage{.body = copy}.request()));
  ASSERT_EQ(puts_[7].status, PutStatus::ok);
  ASSERT_EQ(file_of(puts_[7].wrote_offset), file_of(puts_[6].wrote_offset));
  clean_stop();
  // Both records fail (6 its body CRC, 7 its stored CRC); the copy of 6 inside 7's body is
  // whole and passes its CRC, but says it is at 6's offset, not where it lies.
  flip_body_of(6);
  rt_.bytes(file_of(puts_[7].wrote_offset))[static_cast<std::size_t>(puts_[7].wrote_offset.value() % 1024 + 9)] ^= 0x5A;
  reopen_with(RecoverMode::abort);
  EXPECT_EQ(store_->recovery().commit_log.end, puts_[6].wrote_offset);
  EXPECT_EQ(queue_bodies(), bodies_except(6, -1));
}

// ---- a flipped byte in the middle of the newest file, a good record after it -----------------

class MidLogDamageTest : public RecoverModeTest {
 protected:
  void SetUp() override {
    RecoverModeTest::SetUp();
    put_messages(8);  // files 0 (0..2), 1024 (3..5), 2048 (6, 7)
    ASSERT_EQ(file_of(puts_[6].wrote_offset), file_of(puts_[7].wrote_offset));
    ASSERT_EQ(puts_[6].wrote_offset.value() % 1024, 0);
    clean_stop();
    flip_body_of(6);
  }
};

TEST_F(MidLogDamageTest, AbortIsTheDefaultAndTheErrorSaysWhereWhatFollowsAndWhatToChoose) {
  config_.recover_mode = StoreConfig{}.recover_mode;
  const Status st = reopen();
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.error().code, Errc::corrupt);
  const std::string& m = st.error().detail;
  EXPECT_NE(m.find(file_of(puts_[6].wrote_offset)), std::string::npos) << m;
  EXPECT_NE(m.find(fmt::format("at offset {}", puts_[6].wrote_offset.value())), std::string::npos) << m;
  EXPECT_NE(m.find(fmt::format("1 valid record(s), {} bytes, follow it", puts_[7].wrote_bytes)), std::string::npos) << m;
  EXPECT_NE(m.find("--recover=truncate"), std::string::npos) << m;
  EXPECT_NE(m.find("--recover=skip"), std::string::npos) << m;
  // Nothing was cut: a second start refuses the same way, and skip still finds message 7.
  store_.reset();
  EXPECT_FALSE(reopen().ok());
  reopen_with(RecoverMode::skip);
  EXPECT_EQ(body_at(puts_[7].wrote_offset), body(7));
}

TEST_F(MidLogDamageTest, TruncateDiscardsWhatFollowsAndReportsIt) {
  reopen_with(RecoverMode::truncate);
  const RecoveryReport& r = store_->recovery().commit_log;
  EXPECT_EQ(r.end, puts_[6].wrote_offset);
  EXPECT_EQ(r.discarded_records, 1);
  EXPECT_EQ(r.discarded_bytes, puts_[7].wrote_bytes);
  EXPECT_EQ(store_->max_offset("T", QueueId(0)).value(), 6);
  EXPECT_EQ(queue_bodies(), bodies_except(6, -1));
  // The cut is below what the checkpoint vouched for: records written over it are not synced,
  // and damage among them after a crash is a torn tail again, not corruption.
  put_messages(2);
  ASSERT_EQ(puts_[8].wrote_offset, puts_[6].wrote_offset);
  store_.reset();
  flip_body_of(8);
  reopen_with(RecoverMode::abort);
  EXPECT_EQ(store_->recovery().commit_log.end, puts_[8].wrote_offset);
  EXPECT_EQ(queue_bodies(), bodies_except(6, -1));
}

TEST_F(MidLogDamageTest, SkipKeepsEveryRecordAfterTheDamageAndLosesOnlyTheDamagedOne) {
  reopen_with(RecoverMode::skip);
  const RecoveryReport& r = store_->recovery().commit_log;
  ASSERT_EQ(r.skipped.size(), 1u);
  EXPECT_EQ(r.skipped[0].from, puts_[6].wrote_offset);
  EXPECT_EQ(r.skipped[0].to, puts_[7].wrote_offset);
  EXPECT_NE(r.skipped[0].detail.find("CRC"), std::string::npos) << r.skipped[0].detail;
  // By offset, through the queue (offset 6 is a hole, 7 keeps its offset), through the index.
  EXPECT_EQ(body_at(puts_[7].wrote_offset), body(7));
  EXPECT_EQ(store_->max_offset("T", QueueId(0)).value(), 8);
  EXPECT_EQ(queue_bodies(), bodies_except(8, 6));
  GetMessageResult at6 = store_->get_messages("T", QueueId(0), QueueOffset(6), 32, nullptr);
  ASSERT_EQ(at6.messages.size(), 1u);
  EXPECT_EQ(at6.queue_offsets[0].value(), 7);
  EXPECT_TRUE(store_->query_by_key("T", "k6", 10, 0, INT64_MAX)->messages.empty());
  EXPECT_EQ(store_->query_by_key("T", "k7", 10, 0, INT64_MAX)->messages.size(), 1u);
  // New messages follow; the repaired log opens again in the default mode, after a clean stop
  // and after a crash.
  put_messages(1);
  EXPECT_EQ(puts_[8].queue_offset.value(), 8);
  EXPECT_EQ(puts_[8].wrote_offset, puts_[7].wrote_offset + puts_[7].wrote_bytes);
  clean_stop();
  reopen_with(RecoverMode::abort);
  EXPECT_TRUE(store_->recovery().commit_log.skipped.empty());
  EXPECT_EQ(queue_bodies(), bodies_except(9, 6));
  store_.reset();
  reopen_with(RecoverMode::abort);
  EXPECT_EQ(queue_bodies(), bodies_except(9, 6));
}

TEST_F(MidLogDamageTest, SkipRebuildsQueuesThatLostTheirFilesWithAHoleForTheLostMessage) {
  // The queue and checkpoint are gone: dispatch rebuilds the queue from the log and meets
  // message 7's queue offset with no message 6 before it.
  std::vector<std::string> gone;
  for (const std::string& path : rt_.paths()) {
    if (path.rfind("store/consumequeue/", 0) == 0 || path == "store/checkpoint") gone.push_back(path);
  }
  for (const auto& p : gone) ASSERT_TRUE(rt_.fs().remove(p).ok());
  reopen_with(RecoverMode::skip);
  EXPECT_EQ(store_->max_offset("T", QueueId(0)).value(), 8);
  EXPECT_EQ(queue_bodies(), bodies_except(8, 6));
  put_messages(1);
  EXPECT_EQ(puts_[8].queue_offset.value(), 8);
}

// ---- damage in an older file, newer files after it ------------------------------------------

class OlderFileDamageTest : public RecoverModeTest {
 protected:
  void SetUp() override {
    RecoverModeTest::SetUp();
    put_messages(9);  // files 0 (0..2), 1024 (3..5), 2048 (6..8)
    ASSERT_EQ(file_of(puts_[8].wrote_offset), "store/commitlog/00000000000000002048");
    clean_stop();
    // The last message of file 1024 (a clean stop scans the last three files): the newer file
    // 2048 holds 6..8.
    flip_body_of(5);
  }
};

TEST_F(OlderFileDamageTest, AbortKeepsTheNewerFile) {
  const Status st = reopen();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.error().detail.find("3 valid record(s)"), std::string::npos) << st.error().detail;
  EXPECT_NE(st.error().detail.find("in 1 file(s)"), std::string::npos) << st.error().detail;
  EXPECT_TRUE(rt_.fs().exists("store/commitlog/00000000000000002048"));
}

TEST_F(OlderFileDamageTest, SkipKeepsTheNewerFileAndEveryMessageInIt) {
  reopen_with(RecoverMode::skip);
  const RecoveryReport& r = store_->recovery().commit_log;
  ASSERT_EQ(r.skipped.size(), 1u);
  EXPECT_EQ(r.skipped[0].from, puts_[5].wrote_offset);
  EXPECT_EQ(r.skipped[0].to.value(), 2048);  // the rest of file 1024 (a BLANK marks it)
  EXPECT_TRUE(rt_.fs().exists("store/commitlog/00000000000000002048"));
  EXPECT_EQ(queue_bodies(), bodies_except(9, 5));
  for (int i = 6; i < 9; ++i) EXPECT_EQ(body_at(puts_[static_cast<std::size_t>(i)].wrote_offset), body(i));
  EXPECT_EQ(store_->query_by_key("T", "k8", 10, 0, INT64_MAX)->messages.size(), 1u);
}

TEST_F(OlderFileDamageTest, TruncateRemovesItAndCountsWhatWasDiscarded) {
  reopen_with(RecoverMode::truncate);
  const RecoveryReport& r = store_->recovery().commit_log;
  EXPECT_EQ(r.end, puts_[5].wrote_offset);
  EXPECT_EQ(r.discarded_records, 3);
  EXPECT_GE(r.files_removed, 1u);
  EXPECT_FALSE(rt_.fs().exists("store/commitlog/00000000000000002048"));
  EXPECT_EQ(queue_bodies(), bodies_except(5, -1));
}

// ---- the filler that marks a damaged range --------------------------------------------------

TEST(DamagedRangeTopic, IsASystemTopicClientsCannotWrite) {
  EXPECT_EQ(kDamagedRangeTopic.substr(0, 8), "rmq_sys_");
  EXPECT_TRUE(is_damage_filler(kDamagedRangeTopic));
  EXPECT_FALSE(is_damage_filler("T"));
}

}  // namespace
}  // namespace ferry::store
