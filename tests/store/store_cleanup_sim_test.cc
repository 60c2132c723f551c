// Cleanup on the simulator (virtual time, small disks): the 04:00 delete hour with the 72 h
// retention, disk use at 75 / 85 / 90 %, ConsumeQueue and index files behind the CommitLog's
// min offset, min offsets moving forward and pulls below them; plus the pure policy functions.
#include <gtest/gtest.h>

#include "tests/store/sim_store.h"
#include "tests/store/store_fixture.h"

namespace ferry::store {
namespace {

using testing::SimStore;
using testing::TestMessage;

constexpr std::int64_t kHourMs = 3'600'000;

TEST(CleanupPolicy, DiskPressureThresholds) {
  const StoreConfig c;
  auto at = [&](std::uint64_t used_pct) {
    return disk_pressure(SpaceInfo{1000, 1000 - used_pct * 10}, c);
  };
  EXPECT_EQ(at(0), DiskPressure::normal);
  EXPECT_EQ(at(74), DiskPressure::normal);
  EXPECT_EQ(at(75), DiskPressure::over_max_used);
  EXPECT_EQ(at(84), DiskPressure::over_max_used);
  EXPECT_EQ(at(85), DiskPressure::clean_forcibly);
  EXPECT_EQ(at(89), DiskPressure::clean_forcibly);
  EXPECT_EQ(at(90), DiskPressure::full);
  EXPECT_EQ(at(100), DiskPressure::full);
  EXPECT_EQ(disk_pressure(SpaceInfo{0, 0}, c), DiskPressure::normal) << "unknown capacity";
}

TEST(CleanupPolicy, DeleteHourIsUtc) {
  const WallMs midnight = sim::kDefaultEpochWallMs;  // 2026-01-01T00:00:00Z
  EXPECT_FALSE(is_delete_hour(midnight, "04"));
  EXPECT_FALSE(is_delete_hour(midnight + 4 * kHourMs - 1, "04"));
  EXPECT_TRUE(is_delete_hour(midnight + 4 * kHourMs, "04"));
  EXPECT_TRUE(is_delete_hour(midnight + 5 * kHourMs - 1, "04"));
  EXPECT_FALSE(is_delete_hour(midnight + 5 * kHourMs, "04"));
  EXPECT_TRUE(is_delete_hour(midnight + 16 * kHourMs, "04;16"));
  EXPECT_TRUE(is_delete_hour(midnight + 4 * kHourMs, "4"));
  EXPECT_FALSE(is_delete_hour(midnight + 4 * kHourMs, ""));
  EXPECT_FALSE(is_delete_hour(midnight + 4 * kHourMs, "x4"));
}

StoreConfig cleanup_config() {
  StoreConfig c = testing::small_config();  // 1 KiB CommitLog files, 4-unit queue files
  c.index_geometry = IndexGeometry{16, 8};  // 7 keys per index file: several index files
  return c;
}

// Puts `n` messages of ~200 bytes (4 per CommitLog file) into T:0 with a key each; returns the
// first record's offset.
PhysicalOffset put_messages(MessageStore& store, int n, const std::string& tag) {
  PhysicalOffset first(-1);
  for (int i = 0; i < n; ++i) {
    TestMessage m;
    m.body = fmt::format("{}-{}-{}", tag, i, std::string(150, 'x'));
    m.keys(fmt::format("{}{}", tag, i));
    const PutResult r = store.put_message(m.request());
    EXPECT_EQ(r.status, PutStatus::ok) << r.detail;
    if (first.value() < 0) first = r.wrote_offset;
  }
  return first;
}

std::size_t files_in(SimStore& s, const std::string& dir) {
  auto names = s.node().fs().list(dir);
  return names.ok() ? names->size() : 0;
}

TEST(StoreCleanupSim, DeleteHourRemovesExpiredFilesButNeverTheNewest) {
  sim::WorldOptions opts;
  opts.seed = 7;
  SimStore s(opts, cleanup_config());
  ASSERT_EQ(s.open(), "");
  MessageStore& store = s.store();
  // Day 1 00:00: batch A; day 2 00:00: batch B.
  put_messages(store, 14, "a");
  s.run_for(std::chrono::seconds(2));
  s.world().jump_wall_clock(s.world().find_node("broker").value(), 24 * kHourMs);
  const PhysicalOffset b_first = put_messages(store, 14, "b");
  s.run_for(std::chrono::seconds(2));
  const std::size_t files_before = store.commit_log().files().file_count();
  const std::size_t index_before = store.index().file_count();
  ASSERT_GE(files_before, 7u);
  ASSERT_GE(index_before, 3u);
  const std::size_t cq_before = files_in(s, "store/consumequeue/T/0");

  // Day 4 00:00 (A is 72 h old, B 48 h): not the delete hour and the disk is nearly empty.
  s.world().jump_wall_clock(s.world().find_node("broker").value(), 48 * kHourMs);
  s.run_for(std::chrono::minutes(1));
  EXPECT_EQ(store.commit_log().files().file_count(), files_before);
  // 03:59:30: still not the hour.
  s.world().jump_wall_clock(s.world().find_node("broker").value(), 4 * kHourMs - 90'000);
  s.run_for(std::chrono::seconds(20));
  EXPECT_EQ(store.commit_log().files().file_count(), files_before);
  EXPECT_EQ(store.min_phy_offset().value(), 0);

  // Crossing 04:00: every file whose newest record is from A (76 h old) goes; B's stay.
  s.run_for(std::chrono::seconds(40));
  const std::int64_t file_size = store.commit_log().file_size();
  const PhysicalOffset b_file(b_first.value() - b_first.value() % file_size);
  EXPECT_EQ(store.min_phy_offset().value(), b_file.value());
  EXPECT_LT(store.commit_log().files().file_count(), files_before);
  EXPECT_LT(store.index().file_count(), index_before) << "index files behind the log min go too";
  EXPECT_LT(files_in(s, "store/consumequeue/T/0"), cq_before) << "queue files behind the log min go too";
  // The queue's min moved to the first message still in the log; a pull below it is told so.
  const QueueOffset min = store.min_offset("T", QueueId(0));
  EXPECT_GT(min.value(), 0);
  auto below = store.get_messages("T", QueueId(0), QueueOffset(0), 8, nullptr);
  EXPECT_EQ(below.status, GetStatus::offset_too_small);
  EXPECT_EQ(below.next_begin_offset.value(), min.value());
  auto from_min = store.get_messages("T", QueueId(0), min, 64, nullptr);
  ASSERT_EQ(from_min.status, GetStatus::found);
  EXPECT_GE(testing::decode(from_min.messages.front()).fields.physical_offset.value(), b_file.value());
  EXPECT_EQ(testing::body_of(from_min.messages.back()).substr(0, 5), "b-13-");
  // Every B message is still there and findable by key.
  EXPECT_EQ(store.query_by_key("T", "b0", 8, 0, INT64_MAX)->messages.size(), 1u);

  // Days later at 04:00 again, B is expired too: everything but the newest file goes.
  s.world().jump_wall_clock(s.world().find_node("broker").value(), 24 * kHourMs - 60'000);
  s.run_for(std::chrono::minutes(2));
  EXPECT_EQ(store.commit_log().files().file_count(), 1u) << "never the newest file";
  EXPECT_EQ(store.min_phy_offset().value(), store.commit_log().files().last_file()->start_offset());
  auto tail = store.get_messages("T", QueueId(0), store.min_offset("T", QueueId(0)), 64, nullptr);
  ASSERT_EQ(tail.status, GetStatus::found);
  EXPECT_EQ(testing::body_of(tail.messages.back()).substr(0, 5), "b-13-");
  // Appends go on after cleanup; offsets stay dense.
  const PutResult r = store.put_message(TestMessage{}.request());
  ASSERT_EQ(r.status, PutStatus::ok) << r.detail;
  EXPECT_EQ(r.queue_offset.value(), 28);
}

// Sets the simulated disk's capacity so that its current use is `pct` percent.
void set_used_pct(SimStore& s, std::uint64_t pct) {
  sim::DiskOptions d = s.disk().options();
  d.capacity_bytes = s.disk().used_bytes() * 100 / pct;
  while (d.capacity_bytes > 0 && s.disk().used_bytes() * 100 < pct * d.capacity_bytes) --d.capacity_bytes;
  s.disk().set_options(d);
}

TEST(StoreCleanupSim, DiskOver75PercentDeletesExpiredFilesWithoutWaitingForTheHour) {
  sim::WorldOptions opts;
  opts.seed = 8;
  SimStore s(opts, cleanup_config());
  ASSERT_EQ(s.open(), "");
  MessageStore& store = s.store();
  put_messages(store, 20, "m");
  s.run_for(std::chrono::seconds(2));
  const std::size_t files = store.commit_log().files().file_count();
  ASSERT_GE(files, 5u);
  set_used_pct(s, 78);
  s.run_for(std::chrono::seconds(30));  // fresh files: nothing is old enough
  EXPECT_EQ(store.commit_log().files().file_count(), files);
  EXPECT_EQ(store.cleanup().pressure(), DiskPressure::over_max_used);
  // 73 h later at 01:00 (not the delete hour): the expired files go because of the disk.
  s.world().jump_wall_clock(s.world().find_node("broker").value(), 73 * kHourMs);
  s.run_for(std::chrono::seconds(30));
  EXPECT_EQ(store.commit_log().files().file_count(), 1u);
  EXPECT_EQ(store.cleanup().pressure(), DiskPressure::normal) << "the deletion freed the disk";
}

TEST(StoreCleanupSim, DiskOver85PercentDeletesAtOnceWhateverTheAge) {
  sim::WorldOptions opts;
  opts.seed = 9;
  SimStore s(opts, cleanup_config());
  ASSERT_EQ(s.open(), "");
  MessageStore& store = s.store();
  put_messages(store, 60, "m");  // 15 files: more than one pass's batch of 10
  s.run_for(std::chrono::seconds(2));
  const std::size_t files = store.commit_log().files().file_count();
  ASSERT_GE(files, 14u);
  set_used_pct(s, 87);
  auto report = store.run_cleanup();
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->pressure, DiskPressure::clean_forcibly);
  EXPECT_TRUE(report->at_once);
  EXPECT_EQ(report->commit_log_files, 10u) << "at most delete_files_batch_max per pass";
  EXPECT_GT(report->consume_queue_files, 0u);
  EXPECT_GT(report->index_files, 0u);
  // Until the pressure is relieved, later passes (the 10 s loop) keep deleting, never the newest.
  set_used_pct(s, 87);
  s.run_for(std::chrono::seconds(30));
  EXPECT_EQ(store.commit_log().files().file_count(), 1u);
  EXPECT_EQ(store.max_offset("T", QueueId(0)).value(), 60);
  const QueueOffset min = store.min_offset("T", QueueId(0));
  EXPECT_GT(min.value(), 50);
  auto g = store.get_messages("T", QueueId(0), QueueOffset(3), 8, nullptr);
  EXPECT_EQ(g.status, GetStatus::offset_too_small);
  EXPECT_EQ(g.next_begin_offset.value(), min.value());
}

TEST(StoreCleanupSim, DiskOver90PercentRefusesPutsButReadsGoOn) {
  sim::WorldOptions opts;
  opts.seed = 10;
  SimStore s(opts, cleanup_config());
  ASSERT_EQ(s.open(), "");
  MessageStore& store = s.store();
  put_messages(store, 3, "m");  // one CommitLog file: nothing cleanup may delete
  s.run_for(std::chrono::seconds(2));
  ASSERT_EQ(store.commit_log().files().file_count(), 1u);
  set_used_pct(s, 95);
  s.run_for(std::chrono::seconds(11));  // one cleanup pass reads the disk
  EXPECT_TRUE(store.cleanup().disk_full());
  const PutResult r = store.put_message(TestMessage{}.request());
  EXPECT_EQ(r.status, PutStatus::service_not_available);
  EXPECT_NE(r.detail.find("disk full"), std::string::npos) << r.detail;
  auto g = store.get_messages("T", QueueId(0), QueueOffset(0), 8, nullptr);
  ASSERT_EQ(g.status, GetStatus::found);
  EXPECT_EQ(g.messages.size(), 3u);
  EXPECT_EQ(store.query_by_key("T", "m1", 8, 0, INT64_MAX)->messages.size(), 1u);
  // Space comes back: the next pass lifts the refusal.
  sim::DiskOptions d = s.disk().options();
  d.capacity_bytes = 1ULL << 30;
  s.disk().set_options(d);
  s.run_for(std::chrono::seconds(11));
  EXPECT_FALSE(store.cleanup().disk_full());
  const PutResult again = store.put_message(TestMessage{}.request());
  EXPECT_EQ(again.status, PutStatus::ok) << again.detail;
  EXPECT_EQ(again.queue_offset.value(), 3);
}

TEST(StoreCleanupSim, RecoveryAfterCleanupKeepsMinOffsets) {
  sim::WorldOptions opts;
  opts.seed = 11;
  StoreConfig c = cleanup_config();
  c.flush_mode = FlushMode::sync_flush;
  SimStore s(opts, c);
  ASSERT_EQ(s.open(), "");
  put_messages(s.store(), 30, "m");
  ASSERT_EQ(s.sync(s.store().max_phy_offset()), PutStatus::ok);
  set_used_pct(s, 87);
  ASSERT_TRUE(s.store().run_cleanup().ok());
  const PhysicalOffset log_min = s.store().min_phy_offset();
  const QueueOffset min = s.store().min_offset("T", QueueId(0));
  ASSERT_GT(log_min.value(), 0);
  s.run_for(std::chrono::seconds(2));
  s.crash();
  ASSERT_EQ(s.open(), "");
  EXPECT_EQ(s.store().min_phy_offset().value(), log_min.value());
  EXPECT_EQ(s.store().min_offset("T", QueueId(0)).value(), min.value());
  EXPECT_EQ(s.store().max_offset("T", QueueId(0)).value(), 30);
  auto g = s.store().get_messages("T", QueueId(0), min, 64, nullptr);
  ASSERT_EQ(g.status, GetStatus::found);
  EXPECT_EQ(static_cast<std::int64_t>(g.messages.size()), 30 - min.value());
}

// A crash while the checkpoint is older than the log's start (no ConsumeQueue flush since the
// cleanup: disk-full under --swarm seed 71, whose queue flush failed for good): the index file
// that straddles the log's start reaches past the checkpoint and is dropped, and re-indexing
// starts at the log's start, above that file's first entry (recovery asserted it never would).
TEST(StoreCleanupSim, ACrashWithACheckpointBelowTheLogStartReindexesFromTheLogStart) {
  for (int n : {29, 30, 31, 33}) {
    SCOPED_TRACE(fmt::format("{} messages", n));
    sim::WorldOptions opts;
    opts.seed = 12;
    SimStore s(opts, cleanup_config());
    ASSERT_EQ(s.open(), "");
    put_messages(s.store(), n, "m");  // no ConsumeQueue flush yet: no checkpoint
    set_used_pct(s, 87);
    ASSERT_TRUE(s.store().run_cleanup().ok());
    const PhysicalOffset log_min = s.store().min_phy_offset();
    ASSERT_GT(log_min.value(), 0);
    s.crash(sim::CrashKind::process_kill);
    ASSERT_EQ(s.open(), "");
    EXPECT_EQ(s.store().min_phy_offset().value(), log_min.value());
    EXPECT_EQ(s.store().max_offset("T", QueueId(0)).value(), n);
    const QueueOffset min = s.store().min_offset("T", QueueId(0));
    auto g = s.store().get_messages("T", QueueId(0), min, 64, nullptr);
    ASSERT_EQ(g.status, GetStatus::found);
    EXPECT_EQ(static_cast<std::int64_t>(g.messages.size()), n - min.value());
    // Re-indexed: the keys of what is left are found again.
    const std::string last_key = fmt::format("m{}", n - 1);
    auto found = s.store().query_by_key("T", last_key, 8, 0, INT64_MAX);
    ASSERT_TRUE(found.ok());
    EXPECT_EQ(found->messages.size(), 1u) << last_key;
  }
}

}  // namespace
}  // namespace ferry::store
