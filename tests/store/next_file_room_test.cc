// Free space checked against the next file to create (issue 17): a disk under the used-ratio
// limit that has no room for the next CommitLog file refuses the put that needs it with a clear
// 14 ("disk full: the next CommitLog file needs N bytes, M free"), creates and appends nothing,
// loses nothing stored, says so in write_refusal() (brokerStatus), and takes writes again by
// itself once the room is back. ConsumeQueue and index files are checked too, on the indexing path.
#include <gtest/gtest.h>

#include <algorithm>

#include "tests/store/one_node.h"
#include "tests/store/store_fixture.h"

namespace ferry::store {
namespace {

using testing::OneNode;
using testing::TestMessage;

constexpr std::int64_t kFileBytes = 64 * 1024;
constexpr std::uint64_t kFreeBytes = 48 * 1024;  // under one CommitLog file, over 10 % of the disk

StoreConfig room_config(bool preallocate) {
  StoreConfig c = testing::small_config();
  c.commit_log_file_size_bytes = kFileBytes;
  c.consume_queue_units_per_file = 2048;  // one ConsumeQueue file (40 KiB) for the whole test
  c.commit_log_preallocate = preallocate;
  return c;
}

// What the CommitLog keeps free besides its next file (commit_log.cc: one ConsumeQueue file and
// one index file).
std::int64_t reserve_bytes(const StoreConfig& c) {
  return c.consume_queue_units_per_file * static_cast<std::int64_t>(cq::kUnitBytes) + c.index_geometry.file_size();
}

class NextFileRoomTest : public ::testing::Test {
 protected:
  void TearDown() override {
    rt_.kill();
    store_.reset();
  }
  void open(bool preallocate, void (*adjust)(StoreConfig&) = nullptr) {
    config_ = room_config(preallocate);
    if (adjust != nullptr) adjust(config_);
    store_ = std::make_unique<MessageStore>(rt_.runtime(), config_);
    ASSERT_TRUE(rt_.run(store_->open()).ok());
  }
  PutResult put(std::string body = "m") { return store_->put_message(TestMessage{.body = std::move(body)}.request()); }
  // Puts until the next one would not fit the current CommitLog file; returns how many were put.
  std::int64_t fill_current_file() {
    std::int64_t n = 0;
    for (;;) {
      const std::int64_t end = store_->max_phy_offset().value();
      if (end % kFileBytes + record_bytes_ + 8 > kFileBytes) return n;
      const PutResult r = put();
      EXPECT_EQ(r.status, PutStatus::ok) << r.detail;
      if (!r.stored()) return n;
      EXPECT_EQ(r.wrote_bytes, record_bytes_);
      ++n;
    }
  }
  // Leaves kFreeBytes free, as another process filling the disk would.
  void squeeze_disk() {
    rt_.set_capacity_bytes(rt_.used_bytes() + kFreeBytes);
    ASSERT_NE(store_->refresh_disk(), DiskPressure::full)
        << "the test needs a disk under the ratio limit: " << rt_.used_bytes() << " bytes used, " << kFreeBytes
        << " free";
  }
  std::vector<std::string> commit_log_files() {
    std::vector<std::string> out;
    for (const std::string& p : rt_.paths()) {
      if (p.starts_with("store/commitlog/")) out.push_back(p);
    }
    return out;
  }
  std::int64_t readable(QueueOffset from) {
    std::int64_t n = 0;
    for (;;) {
      const GetMessageResult g = store_->get_messages("T", QueueId(0), from + n, 32, nullptr);
      if (g.messages.empty()) return n;
      n += static_cast<std::int64_t>(g.messages.size());
    }
  }
  std::string expected_refusal() const {
    const std::int64_t reserve = reserve_bytes(config_);
    return fmt::format("disk full: the next CommitLog file needs {} bytes ({} for the file, {} kept in reserve), {} free",
                       kFileBytes + reserve, kFileBytes, reserve, kFreeBytes);
  }

  OneNode rt_;
  StoreConfig config_;
  std::unique_ptr<MessageStore> store_;
  std::int64_t record_bytes_ = 0;
};

TEST_F(NextFileRoomTest, ARollOverWithoutRoomIsRefusedUpFrontAndResumesWhenRoomReturns) {
  open(/*preallocate=*/false);
  const PutResult first = put();
  ASSERT_EQ(first.status, PutStatus::ok) << first.detail;
  record_bytes_ = first.wrote_bytes;
  const std::int64_t stored = 1 + fill_current_file();
  squeeze_disk();
  const std::vector<std::string> files_before = commit_log_files();
  const PhysicalOffset end_before = store_->max_phy_offset();

  const PutResult refused = put();
  EXPECT_EQ(refused.status, PutStatus::service_not_available) << refused.detail;
  EXPECT_EQ(refused.detail, expected_refusal());
  EXPECT_EQ(commit_log_files(), files_before) << "no file created, not even an empty one";
  EXPECT_EQ(store_->max_phy_offset(), end_before) << "nothing appended (not even the BLANK of a roll-over)";
  EXPECT_EQ(store_->write_refusal().value_or("takes writes"), expected_refusal()) << "brokerStatus says why";
  const PutResult again = put();
  EXPECT_EQ(again.status, PutStatus::service_not_available);
  EXPECT_EQ(again.detail, expected_refusal());
  EXPECT_EQ(readable(QueueOffset(0)), stored) << "everything stored is still readable";

  rt_.set_capacity_bytes(std::uint64_t{1} << 30);  // the other process is gone
  EXPECT_FALSE(store_->write_refusal().has_value()) << store_->write_refusal().value_or("");
  const PutResult resumed = put();
  ASSERT_EQ(resumed.status, PutStatus::ok) << resumed.detail;
  EXPECT_EQ(resumed.wrote_offset.value(), kFileBytes) << "the record starts the next file";
  EXPECT_EQ(resumed.queue_offset.value(), stored) << "the refused puts took no queue offset";
  EXPECT_EQ(readable(QueueOffset(0)), stored + 1);
}

// With pre-allocation the next file's space is held as soon as a file starts, so the roll-over
// into it needs no room; the pre-allocation after it is refused up front (no file made), and the
// roll-over after that is refused like any other until room returns.
TEST_F(NextFileRoomTest, PreAllocationIsRefusedUpFrontAndTheNextRollOverToo) {
  open(/*preallocate=*/true);
  store_->start();
  const PutResult first = put();
  ASSERT_EQ(first.status, PutStatus::ok) << first.detail;
  record_bytes_ = first.wrote_bytes;
  rt_.run_for(std::chrono::milliseconds(10));  // the second file is pre-allocated
  ASSERT_EQ(commit_log_files().size(), 2u);
  std::int64_t stored = 1 + fill_current_file();
  squeeze_disk();

  const PutResult into_ready = put();
  ASSERT_EQ(into_ready.status, PutStatus::ok) << into_ready.detail << " (the pre-allocated file holds its space)";
  EXPECT_EQ(into_ready.wrote_offset.value(), kFileBytes);
  ++stored;
  rt_.run_for(std::chrono::milliseconds(10));  // the third file's pre-allocation is refused
  EXPECT_EQ(commit_log_files().size(), 2u) << "no third file, not even an empty one";
  EXPECT_FALSE(store_->write_refusal().has_value()) << "records that fit the current file are taken";
  stored += fill_current_file();

  const PutResult refused = put();
  EXPECT_EQ(refused.status, PutStatus::service_not_available);
  EXPECT_EQ(refused.detail, expected_refusal());
  EXPECT_EQ(store_->write_refusal().value_or("takes writes"), expected_refusal());
  EXPECT_EQ(commit_log_files().size(), 2u);
  EXPECT_EQ(readable(QueueOffset(0)), stored);

  rt_.set_capacity_bytes(std::uint64_t{1} << 30);
  const PutResult resumed = put();
  ASSERT_EQ(resumed.status, PutStatus::ok) << resumed.detail;
  EXPECT_EQ(resumed.wrote_offset.value(), 2 * kFileBytes);
  EXPECT_EQ(readable(QueueOffset(0)), stored + 1);
}

// A new ConsumeQueue file is checked the same way (no reserve: it indexes a record already
// stored). On the indexing path the put stands, writes are refused saying why, and the retry
// creates the file once room returns; no partial file is left meanwhile.
TEST_F(NextFileRoomTest, AConsumeQueueFileWithoutRoomIsNotCreatedAndIsRetried) {
  open(/*preallocate=*/false);
  store_->start();
  ASSERT_EQ(put().status, PutStatus::ok);
  rt_.set_capacity_bytes(rt_.used_bytes() + 100);  // room for the record, not for a 40 KiB ConsumeQueue file
  const PutResult stored = store_->put_message(TestMessage{.topic = "New", .body = "n"}.request());
  ASSERT_EQ(stored.status, PutStatus::ok) << stored.detail << " (the record is in the CommitLog)";
  const std::optional<std::string> why = store_->write_refusal();
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("disk full: the next ConsumeQueue New:0 file needs 40960 bytes, "), std::string::npos) << *why;
  const std::vector<std::string> paths = rt_.paths();
  EXPECT_TRUE(std::none_of(paths.begin(), paths.end(),
                           [](const std::string& p) { return p.starts_with("store/consumequeue/New/"); }))
      << "no ConsumeQueue file was left behind";

  rt_.set_capacity_bytes(std::uint64_t{1} << 30);
  rt_.run_for(2 * MessageStore::kDispatchRetryInterval);
  EXPECT_FALSE(store_->write_refusal().has_value()) << store_->write_refusal().value_or("");
  EXPECT_EQ(store_->get_messages("New", QueueId(0), QueueOffset(0), 32, nullptr).messages.size(), 1u);
}

// A new index file too (no reserve either). The disk-ratio limits are lifted here: the free space
// left (under one small index file) would otherwise be over 90 % used, and this test is about the
// file, not the ratio.
TEST_F(NextFileRoomTest, AnIndexFileWithoutRoomIsNotCreatedAndIsRetried) {
  open(/*preallocate=*/false, [](StoreConfig& c) {
    c.disk_max_used_space_ratio_pct = 100;
    c.disk_space_clean_forcibly_ratio_pct = 100;
    c.disk_space_warning_level_ratio_pct = 100;
  });
  store_->start();
  // One entry left in the index file: the last record's two keys need the next file.
  const std::int32_t entries = config_.index_geometry.entries;
  std::int64_t keyed = 0;
  while (store_->index().file_count() == 0 || store_->index().file(0).header().index_count < entries - 1) {
    ASSERT_EQ(store_->put_message(TestMessage{}.keys(fmt::format("K{}", keyed++)).request()).status, PutStatus::ok);
  }
  ASSERT_EQ(store_->index().file_count(), 1u);
  const std::int64_t index_file = config_.index_geometry.file_size();
  rt_.set_capacity_bytes(rt_.used_bytes() + static_cast<std::uint64_t>(index_file) - 1);

  const PutResult stored = store_->put_message(TestMessage{}.uniq("U-Last").keys("Last").request());
  ASSERT_EQ(stored.status, PutStatus::ok) << stored.detail << " (the record is in the CommitLog)";
  const std::optional<std::string> why = store_->write_refusal();
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find(fmt::format("disk full: the next index file needs {} bytes, {} free", index_file, index_file - 1)),
            std::string::npos)
      << *why;
  EXPECT_EQ(store_->index().file_count(), 1u) << "no index file was left behind";
  EXPECT_EQ(store_->index().file(0).header().index_count, entries - 1) << "none of the record's keys went in";

  rt_.set_capacity_bytes(std::uint64_t{1} << 30);
  rt_.run_for(2 * MessageStore::kDispatchRetryInterval);
  EXPECT_FALSE(store_->write_refusal().has_value()) << store_->write_refusal().value_or("");
  for (const char* key : {"U-Last", "Last"}) {
    auto found = store_->query_by_key("T", key, 10, 0, INT64_MAX);
    ASSERT_TRUE(found.ok());
    EXPECT_EQ(found->messages.size(), 1u) << key << " indexed once the room returned";
  }
  EXPECT_EQ(readable(QueueOffset(0)), keyed + 1);
}

// An EIO (not ENOSPC) creating the next index file leaves none of the record's keys indexed
// either: the file is made before the first key goes in, so the retry indexes the record whole
// (before, its uniq key went into the old file's last entry and the retry skipped it as a replay,
// so its KEYS were never indexed).
TEST_F(NextFileRoomTest, AnIndexFileCreationEioLeavesTheRecordWholeForTheRetry) {
  open(/*preallocate=*/false);
  store_->start();
  const std::int32_t entries = config_.index_geometry.entries;
  std::int64_t keyed = 0;
  while (store_->index().file_count() == 0 || store_->index().file(0).header().index_count < entries - 1) {
    ASSERT_EQ(store_->put_message(TestMessage{}.keys(fmt::format("K{}", keyed++)).request()).status, PutStatus::ok);
  }
  ASSERT_EQ(store_->index().file_count(), 1u);
  rt_.set_creates_fail(true);

  const PutResult stored = store_->put_message(TestMessage{}.uniq("U-Last").keys("Last").request());
  ASSERT_EQ(stored.status, PutStatus::ok) << stored.detail << " (the record is in the CommitLog)";
  const std::optional<std::string> why = store_->write_refusal();
  ASSERT_TRUE(why.has_value()) << "an unindexed record refuses writes until it is indexed";
  EXPECT_NE(why->find("simulated EIO creating"), std::string::npos) << *why;
  EXPECT_EQ(store_->index().file_count(), 1u);
  EXPECT_EQ(store_->index().file(0).header().index_count, entries - 1) << "none of the record's keys went in";

  rt_.set_creates_fail(false);
  rt_.run_for(2 * MessageStore::kDispatchRetryInterval);
  EXPECT_FALSE(store_->write_refusal().has_value()) << store_->write_refusal().value_or("");
  EXPECT_EQ(store_->index().file_count(), 2u);
  for (const char* key : {"U-Last", "Last"}) {
    auto found = store_->query_by_key("T", key, 10, 0, INT64_MAX);
    ASSERT_TRUE(found.ok());
    EXPECT_EQ(found->messages.size(), 1u) << key << " indexed by the retry";
  }
  EXPECT_EQ(store_->index().file(0).header().index_count, entries - 1) << "the old file keeps its last entry free";
}

}  // namespace
}  // namespace ferry::store
