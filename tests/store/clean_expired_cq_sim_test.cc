// cleanExpiredCQ on the simulator: ConsumeQueues whose messages the CommitLog cleanup deleted are
// destroyed (files and directories), other queues are untouched, the result survives a restart,
// and a crash after any removal of the clean leaves a store that opens and finishes the job.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include "common/names.h"
#include "tests/store/sim_store.h"
#include "tests/store/store_fixture.h"

namespace ferry::store {
namespace {

using testing::SimStore;
using testing::TestMessage;

const std::vector<std::string> kKept = {std::string(kScheduleTopic)};

StoreConfig clean_config() {
  StoreConfig c = testing::small_config();  // 1 KiB CommitLog files, 4-unit queue files
  c.flush_mode = FlushMode::sync_flush;
  return c;
}

void put_n(SimStore& s, const std::string& topic, std::int32_t queue, int n) {
  for (int i = 0; i < n; ++i) {
    TestMessage m;
    m.topic = topic;
    m.queue_id = QueueId(queue);
    m.body = fmt::format("{}-{}-{}-{}", topic, queue, i, std::string(150, 'x'));
    const PutResult r = s.store().put_message(m.request());
    ASSERT_EQ(r.status, PutStatus::ok) << r.detail;
  }
  ASSERT_EQ(s.sync(s.store().max_phy_offset()), PutStatus::ok);
}

// Sets the simulated disk's capacity so that its current use is `pct` percent.
void set_used_pct(SimStore& s, std::uint64_t pct) {
  sim::DiskOptions d = s.disk().options();
  d.capacity_bytes = s.disk().used_bytes() * 100 / pct;
  while (d.capacity_bytes > 0 && s.disk().used_bytes() * 100 < pct * d.capacity_bytes) --d.capacity_bytes;
  s.disk().set_options(d);
}

// Old:0 (9 messages, 3 queue files), Old:1 (2) and the delay topic's queue 0 (1) go first, then
// Keep:0 (20) fills the log; cleanup at 87 % disk deletes every CommitLog file but the newest,
// which holds only Keep's last messages. Everything is synced and checkpointed.
void build_expired_store(SimStore& s) {
  ASSERT_EQ(s.open(), "");
  put_n(s, "Old", 0, 9);
  put_n(s, "Old", 1, 2);
  put_n(s, std::string(kScheduleTopic), 0, 1);
  put_n(s, "Keep", 0, 20);
  set_used_pct(s, 87);
  ASSERT_TRUE(s.store().run_cleanup().ok());
  sim::DiskOptions d = s.disk().options();
  d.capacity_bytes = 1ull << 40;  // room again
  s.disk().set_options(d);
  (void)s.store().refresh_disk();
  s.run_for(std::chrono::seconds(2));  // queue flush + checkpoint
  ASSERT_GT(s.store().min_phy_offset().value(), 0);
  // Old's queues read as empty (cleanup moved their min to their end), Keep's does not.
  ASSERT_NE(s.store().find_queue("Old", QueueId(0)), nullptr);
  ASSERT_EQ(s.store().min_offset("Old", QueueId(0)).value(), 9);
  ASSERT_LT(s.store().min_offset("Keep", QueueId(0)).value(), 20);
}

bool exists(SimStore& s, const std::string& path) { return s.node().fs().exists(path); }

// What a user checks after the clean: Old is gone from the store and the disk, Keep and the delay
// topic are as they were, and Old:0 starts again at queue offset 0.
void expect_cleaned(SimStore& s, QueueOffset keep_min) {
  MessageStore& store = s.store();
  EXPECT_EQ(store.find_queue("Old", QueueId(0)), nullptr);
  EXPECT_EQ(store.find_queue("Old", QueueId(1)), nullptr);
  EXPECT_FALSE(exists(s, "store/consumequeue/Old")) << "the topic's directory is removed with its last queue";
  EXPECT_EQ(store.get_messages("Old", QueueId(0), QueueOffset(0), 8, nullptr).status,
            GetStatus::no_matched_logic_queue);
  EXPECT_NE(store.find_queue(std::string(kScheduleTopic), QueueId(0)), nullptr) << "the delay topic is kept";
  EXPECT_EQ(store.min_offset("Keep", QueueId(0)).value(), keep_min.value());
  EXPECT_EQ(store.max_offset("Keep", QueueId(0)).value(), 20);
  auto g = store.get_messages("Keep", QueueId(0), keep_min, 32, nullptr);
  ASSERT_EQ(g.status, GetStatus::found);
  EXPECT_EQ(static_cast<std::int64_t>(g.messages.size()), 20 - keep_min.value());
  EXPECT_EQ(testing::body_of(g.messages.back()).substr(0, 10), "Keep-0-19-");
}

TEST(CleanExpiredCqSim, WhollyExpiredQueuesGoOthersStayAcrossARestart) {
  sim::WorldOptions opts;
  opts.seed = 3;
  SimStore s(opts, clean_config());
  build_expired_store(s);
  if (HasFatalFailure()) return;
  const QueueOffset keep_min = s.store().min_offset("Keep", QueueId(0));
  ASSERT_TRUE(exists(s, "store/consumequeue/Old/0"));

  auto report = s.store().clean_expired_queues(kKept);
  ASSERT_TRUE(report.ok()) << report.error().to_string();
  EXPECT_EQ(report->removed, (std::vector<QueueKey>{{"Old", 0}, {"Old", 1}}));
  EXPECT_EQ(report->topic_dirs_removed, 1u);
  EXPECT_EQ(report->log_min.value(), s.store().min_phy_offset().value());
  expect_cleaned(s, keep_min);
  // A second clean finds nothing to do.
  auto again = s.store().clean_expired_queues(kKept);
  ASSERT_TRUE(again.ok());
  EXPECT_TRUE(again->removed.empty());

  // After a restart (clean stop, then a crash) the queues stay gone.
  ASSERT_EQ(s.shutdown(), "");
  ASSERT_EQ(s.open(), "");
  expect_cleaned(s, keep_min);
  s.crash();
  ASSERT_EQ(s.open(), "");
  expect_cleaned(s, keep_min);

  // Old:0 starts again at queue offset 0 (RocketMQ forgets the queue's offset too), and that
  // survives a restart.
  TestMessage m;
  m.topic = "Old";
  m.body = "reborn";
  const PutResult r = s.store().put_message(m.request());
  ASSERT_EQ(r.status, PutStatus::ok) << r.detail;
  EXPECT_EQ(r.queue_offset.value(), 0);
  ASSERT_EQ(s.sync(s.store().max_phy_offset()), PutStatus::ok);
  s.crash();
  ASSERT_EQ(s.open(), "");
  auto g = s.store().get_messages("Old", QueueId(0), QueueOffset(0), 8, nullptr);
  ASSERT_EQ(g.status, GetStatus::found);
  ASSERT_EQ(g.messages.size(), 1u);
  EXPECT_EQ(testing::body_of(g.messages.front()), "reborn");
}

TEST(CleanExpiredCqSim, PartlyExpiredAndPendingQueuesAreKept) {
  sim::WorldOptions opts;
  opts.seed = 4;
  SimStore s(opts, clean_config());
  build_expired_store(s);
  if (HasFatalFailure()) return;
  // A message put to Old:1 and not yet synced (SYNC_FLUSH indexes it after the sync) holds queue
  // offset 2: the queue must stay, or that offset would be given again.
  TestMessage m;
  m.topic = "Old";
  m.queue_id = QueueId(1);
  const PutResult pending = s.store().put_message(m.request());
  ASSERT_EQ(pending.status, PutStatus::ok) << pending.detail;
  ASSERT_EQ(pending.queue_offset.value(), 2);
  auto report = s.store().clean_expired_queues(kKept);
  ASSERT_TRUE(report.ok()) << report.error().to_string();
  EXPECT_EQ(report->removed, (std::vector<QueueKey>{{"Old", 0}})) << "Keep:0 has messages in the log; Old:1 waits";
  ASSERT_EQ(s.sync(s.store().max_phy_offset()), PutStatus::ok);
  EXPECT_EQ(s.store().max_offset("Old", QueueId(1)).value(), 3);
  auto g = s.store().get_messages("Old", QueueId(1), QueueOffset(2), 8, nullptr);
  ASSERT_EQ(g.status, GetStatus::found);
  EXPECT_EQ(g.messages.size(), 1u);
}

Task<void> flush_and_mark(MessageStore* store, bool* done) {
  Status st = co_await store->flush_queues_and_checkpoint();
  (void)st;  // the test checks *done; a failed flush is logged by the store's own loop
  *done = true;
}

TEST(CleanExpiredCqSim, AFlushInFlightOutlivesTheQueuesItHolds) {
  sim::WorldOptions opts;
  opts.seed = 5;
  SimStore s(opts, clean_config());
  build_expired_store(s);
  if (HasFatalFailure()) return;
  put_n(s, "Keep", 0, 1);  // Keep:0 has a unit to sync ("Keep" flushes before "Old")
  bool done = false;
  s.node().spawn(flush_and_mark(&s.store(), &done), "flush");
  s.run_for(std::chrono::microseconds(100));  // suspended in Keep:0's sync (1 ms)
  ASSERT_FALSE(done);
  auto report = s.store().clean_expired_queues(kKept);
  ASSERT_TRUE(report.ok()) << report.error().to_string();
  EXPECT_EQ(report->removed.size(), 2u);
  s.run_for(std::chrono::seconds(1));
  EXPECT_TRUE(done) << "the flush went on over the destroyed queues' retired objects";
}

// The clean's removals for Old (its one queue here): the queue's files newest first, its
// directory, then the topic's directory (a queue with several files leaves a contiguous prefix of
// full, expired segments, which loads like the one file here). A crash after each prefix must open, and the next clean
// must finish the job.
TEST(CleanExpiredCqSim, ACrashAfterAnyRemovalRecovers) {
  std::size_t steps = 0;
  for (std::size_t k = 0;; ++k) {
    sim::WorldOptions opts;
    opts.seed = 100 + k;
    SimStore s(opts, clean_config());
    ASSERT_EQ(s.open(), "");
    put_n(s, "Old", 0, 9);
    put_n(s, "Keep", 0, 20);
    set_used_pct(s, 87);
    ASSERT_TRUE(s.store().run_cleanup().ok());
    sim::DiskOptions d = s.disk().options();
    d.capacity_bytes = 1ull << 40;
    s.disk().set_options(d);
    (void)s.store().refresh_disk();
    s.run_for(std::chrono::seconds(2));
    const QueueOffset keep_min = s.store().min_offset("Keep", QueueId(0));
    std::vector<std::string> plan = s.store().find_queue("Old", QueueId(0))->removal_order();
    plan.push_back("store/consumequeue/Old");
    // Cleanup already removed the queue files before the last one (never the last: the queue's
    // end lives there), so a wholly expired queue has one file left.
    ASSERT_EQ(plan.size(), 3u) << "the queue's last file, its directory, the topic's directory";
    steps = plan.size();
    if (k > steps) break;
    SCOPED_TRACE(fmt::format("crash after {} of {} removals", k, steps));
    for (std::size_t i = 0; i < k && i < steps; ++i) {
      ASSERT_TRUE(s.node().fs().remove(plan[i]).ok()) << plan[i];
    }
    s.crash();
    ASSERT_EQ(s.open(), "");
    if (const ConsumeQueue* q = s.store().find_queue("Old", QueueId(0))) {
      EXPECT_EQ(q->min_offset(), q->max_offset()) << "what is left of Old:0 reads as empty";
    }
    EXPECT_EQ(s.store().min_offset("Keep", QueueId(0)).value(), keep_min.value());
    auto report = s.store().clean_expired_queues(kKept);
    ASSERT_TRUE(report.ok()) << report.error().to_string();
    EXPECT_EQ(s.store().find_queue("Old", QueueId(0)), nullptr);
    EXPECT_FALSE(exists(s, "store/consumequeue/Old"));
    EXPECT_EQ(s.store().max_offset("Keep", QueueId(0)).value(), 20);
    ASSERT_EQ(s.shutdown(), "");
    ASSERT_EQ(s.open(), "");
    EXPECT_EQ(s.store().find_queue("Old", QueueId(0)), nullptr);
    EXPECT_FALSE(exists(s, "store/consumequeue/Old"));
  }
  EXPECT_EQ(steps, 3u);
}

}  // namespace
}  // namespace ferry::store
