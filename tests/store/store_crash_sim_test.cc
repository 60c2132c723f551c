// Crash recovery on the simulator's disk: unsynced writes are lost or torn (with garbage
// sectors) at a crash; after restart every acknowledged SYNC_FLUSH message is intact, queues
// are dense, and nothing half-written is served. Swept over seeds.
#include <gtest/gtest.h>

#include "sim/node.h"
#include "sim/world.h"
#include "store/file_names.h"
#include "tests/store/sim_store.h"
#include "tests/store/store_fixture.h"

namespace ferry::store {
namespace {

using testing::TestMessage;

struct Produced {
  std::vector<std::string> acked;  // bodies whose wait_durable returned ok
  std::vector<std::string> sent;   // every body stored (in order)
};

Task<Status> open_store(MessageStore* store) { co_return co_await store->open(); }
Task<Status> sync_file(File* f) { co_return co_await f->sync(); }

Task<void> produce(MessageStore* store, std::uint64_t seed, Produced* out) {
  // Synced phase, then an unsynced tail that the crash may lose or tear.
  for (int phase = 0; phase < 2; ++phase) {
    for (int i = 0; i < 12; ++i) {
      TestMessage m;
      m.body = fmt::format("s{}-p{}-m{}-{}", seed, phase, i, std::string(40 + (i * 37) % 150, 'x'));
      m.keys(fmt::format("key{}", out->sent.size()));
      const PutResult r = store->put_message(m.request());
      if (!r.stored()) continue;
      out->sent.push_back(m.body);
      if (phase == 0 && co_await store->wait_durable(r.end()) == PutStatus::ok) out->acked.push_back(m.body);
    }
  }
}

TEST(StoreCrashSim, AcknowledgedMessagesSurviveTornCrashes) {
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    SCOPED_TRACE(fmt::format("seed {}", seed));
    sim::WorldOptions opts;
    opts.seed = seed;
    opts.disk.torn_write_on_crash_ppm = 1'000'000;
    // Kept sectors of the unsynced tail hold garbage in every byte the unsynced writes changed
    // (synced bytes sharing a sector stay intact): records fail their CRC, ConsumeQueue units
    // are checked against the records they point at.
    opts.disk.corrupt_torn_sector_ppm = seed % 2 == 0 ? 1'000'000 : 0;
    sim::World world(opts);
    const sim::NodeId id = world.add_node("broker");
    StoreConfig config = testing::small_config();
    config.flush_mode = FlushMode::sync_flush;
    Produced produced;
    {
      MessageStore store(world.node(id), config);
      auto opened = world.run_task(id, open_store(&store), std::chrono::seconds(10));
      ASSERT_TRUE(opened.ok()) << opened.report.message;
      ASSERT_TRUE(opened.value->ok()) << opened.value->error().to_string();
      auto ran = world.run_task(id, produce(&store, seed, &produced), std::chrono::seconds(60));
      ASSERT_TRUE(ran.ok()) << ran.report.message;
    }
    ASSERT_EQ(produced.acked.size(), 12u);
    world.power_off(id);
    world.start(id);
    MessageStore store(world.node(id), config);
    auto opened = world.run_task(id, open_store(&store), std::chrono::seconds(10));
    ASSERT_TRUE(opened.ok()) << opened.report.message;
    ASSERT_TRUE(opened.value->ok()) << opened.value->error().to_string();
    // What is served is a prefix of what was sent, at least everything acknowledged.
    auto g = store.get_messages("T", QueueId(0), QueueOffset(0), 64, nullptr);
    std::vector<std::string> served;
    for (const FileView& v : g.messages) {
      const RecordRead r = testing::decode(v);
      ASSERT_EQ(r.kind, RecordKind::message) << r.detail;
      served.push_back(testing::body_of(v));
    }
    ASSERT_GE(served.size(), produced.acked.size());
    ASSERT_LE(served.size(), produced.sent.size());
    for (std::size_t i = 0; i < served.size(); ++i) EXPECT_EQ(served[i], produced.sent[i]) << i;
    EXPECT_EQ(store.max_offset("T", QueueId(0)).value(), static_cast<std::int64_t>(served.size()));
    // Keys of lost messages are not found; keys of kept ones are.
    const std::size_t kept = served.size();
    EXPECT_EQ(store.query_by_key("T", fmt::format("key{}", kept - 1), 8, 0, INT64_MAX)->messages.size(), 1u);
    if (kept < produced.sent.size()) {
      EXPECT_TRUE(store.query_by_key("T", fmt::format("key{}", kept), 8, 0, INT64_MAX)->messages.empty());
    }
    // Appending continues densely.
    const PutResult r = store.put_message(TestMessage{}.request());
    ASSERT_EQ(r.status, PutStatus::ok) << r.detail;
    EXPECT_EQ(r.queue_offset.value(), static_cast<std::int64_t>(kept));
  }
}

// Every body of queue T/0, in order; each read must find messages.
void read_queue(MessageStore& store, std::vector<std::string>& served) {
  for (QueueOffset at(0); at < store.max_offset("T", QueueId(0));) {
    auto g = store.get_messages("T", QueueId(0), at, 16, nullptr);
    ASSERT_EQ(g.status, GetStatus::found) << "at " << at.value();
    for (const FileView& v : g.messages) served.push_back(testing::body_of(v));
    at = g.next_begin_offset;
  }
}

// A failed sync loses what it covered (Linux marks the pages clean; a retry "succeeds"). The store
// must never acknowledge a message whose sync failed, nor one after it: it refuses writes until a
// restart. Then a power loss keeps every acknowledged message.
Task<void> produce_through_sync_errors(MessageStore* store, Produced* out, int* refused) {
  for (int i = 0; i < 40; ++i) {
    TestMessage m;
    m.body = fmt::format("m{}-{}", i, std::string(30 + (i * 53) % 200, 'y'));
    const PutResult r = store->put_message(m.request());
    if (!r.stored()) {
      ++*refused;
      continue;
    }
    out->sent.push_back(m.body);
    if (co_await store->wait_durable(r.end()) == PutStatus::ok) out->acked.push_back(m.body);
  }
}

TEST(StoreCrashSim, NothingAcknowledgedIsLostWhenSyncsFail) {
  int seeds_with_a_failure = 0;
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    SCOPED_TRACE(fmt::format("seed {}", seed));
    sim::WorldOptions opts;
    opts.seed = seed;
    opts.disk.eio_on_sync_ppm = 60'000;
    opts.disk.torn_write_on_crash_ppm = 1'000'000;
    testing::SimStore s(opts, [] {
      StoreConfig c = testing::small_config();
      c.flush_mode = FlushMode::sync_flush;
      return c;
    }());
    ASSERT_EQ(s.open(), "");
    Produced produced;
    int refused = 0;
    auto ran = s.world().run_task(s.world().find_node("broker").value(),
                                  produce_through_sync_errors(&s.store(), &produced, &refused), std::chrono::seconds(120));
    ASSERT_TRUE(ran.ok()) << ran.report.message;
    const bool failed = s.store().flusher().sync_failure().has_value();
    if (failed) {
      ++seeds_with_a_failure;
      EXPECT_GT(refused, 0) << "writes after a failed sync are refused";
      EXPECT_LT(produced.acked.size(), produced.sent.size()) << "the message whose sync failed is not acknowledged";
    } else {
      EXPECT_EQ(produced.acked.size(), 40u);
    }
    s.crash();  // power loss
    // The disk behaves again (a failed sync at open would refuse the open, rightly: recovery syncs
    // what it found before publishing it).
    sim::DiskOptions healthy = s.disk().options();
    healthy.eio_on_sync_ppm = 0;
    s.disk().set_options(healthy);
    ASSERT_EQ(s.open(), "");
    std::vector<std::string> served;
    ASSERT_NO_FATAL_FAILURE(read_queue(s.store(), served));
    ASSERT_GE(served.size(), produced.acked.size());
    for (std::size_t i = 0; i < produced.acked.size(); ++i) EXPECT_EQ(served[i], produced.acked[i]) << i;
    const PutResult r = s.store().put_message(TestMessage{}.request());
    EXPECT_EQ(r.status, PutStatus::ok) << "a restart takes writes again: " << r.detail;
  }
  EXPECT_GE(seeds_with_a_failure, 10) << "the sweep should exercise failed syncs";
}

// The fsync-gate sequence (found by sim_cluster_test seed 53): a sync fails, so Linux marks the
// covered pages clean without writing them; the process is killed, which keeps the page cache;
// the restarted store reads those bytes from the cache, and a sync of its own would skip them
// (clean pages). If it then acknowledged newer messages, a power loss would leave a hole of
// zeros under them and recovery would cut there, losing acknowledged messages. Recovery after an
// abnormal stop writes what it found past the checkpoint again before its first sync.
TEST(StoreCrashSim, AKilledProcessAfterAFailedSyncLosesNothingAcknowledgedLater) {
  sim::WorldOptions opts;
  opts.seed = 5;
  testing::SimStore s(opts, [] {
    StoreConfig c = testing::small_config();
    c.flush_mode = FlushMode::sync_flush;
    c.commit_log_file_size_bytes = 64 * 1024;  // room for records larger than a page
    c.message_size_max_bytes = 16 * 1024;
    return c;
  }());
  ASSERT_EQ(s.open(), "");
  const PutResult first = s.store().put_message(TestMessage{.body = "durable"}.request());
  ASSERT_EQ(s.sync(first.end()), PutStatus::ok);
  s.run_for(std::chrono::seconds(2));  // a checkpoint covers "durable"

  sim::DiskOptions failing = s.disk().options();
  failing.eio_on_sync_ppm = 1'000'000;
  s.disk().set_options(failing);
  // Larger than a page, so the writes after the restart dirty none of the pages it left clean.
  const PutResult lost = s.store().put_message(TestMessage{.body = std::string(10000, 'L')}.request());
  ASSERT_TRUE(lost.stored());
  EXPECT_NE(s.sync(lost.end()), PutStatus::ok) << "a message whose sync failed is not acknowledged";

  s.crash(sim::CrashKind::process_kill);  // the page cache, with the unsynced bytes, survives
  sim::DiskOptions healthy = s.disk().options();
  healthy.eio_on_sync_ppm = 0;
  s.disk().set_options(healthy);
  ASSERT_EQ(s.open(), "");
  std::vector<std::string> acked = {"durable"};
  for (int i = 0; i < 5; ++i) {
    const std::string body = "after restart " + std::to_string(i);
    const PutResult r = s.store().put_message(TestMessage{.body = body}.request());
    ASSERT_EQ(r.status, PutStatus::ok) << r.detail;
    ASSERT_EQ(s.sync(r.end()), PutStatus::ok);
    acked.push_back(body);
  }

  s.crash(sim::CrashKind::power_loss);
  ASSERT_EQ(s.open(), "");
  std::vector<std::string> served;
  ASSERT_NO_FATAL_FAILURE(read_queue(s.store(), served));
  for (const std::string& body : acked) {
    EXPECT_NE(std::find(served.begin(), served.end(), body), served.end()) << "acknowledged and lost: " << body;
  }
}

// The ConsumeQueue's half of the same gate (found by sim_property_test's broadcast property, kept
// as tests/sim/property/failures/cq-replayed-units-unsynced.toml): units dispatched after the last
// checkpoint are only in the page cache when the process is killed; the restart loads them as
// written and replays the log over them, and the next checkpoint says they are durable. Unless the
// replay wrote them again (dirty, so the queue flush before that checkpoint syncs them), a power
// loss then drops them under the checkpoint: the queue comes back short, and the next put reuses
// a lost queue offset.
TEST(StoreCrashSim, UnitsReplayedAfterAKillAreDurableBeforeTheCheckpointSaysSo) {
  sim::WorldOptions opts;
  opts.seed = 5;
  testing::SimStore s(opts, [] {
    StoreConfig c = testing::small_config();
    c.flush_mode = FlushMode::sync_flush;
    return c;
  }());
  ASSERT_EQ(s.open(), "");
  std::vector<std::string> acked;
  auto put = [&](const std::string& body) {
    const PutResult r = s.store().put_message(TestMessage{.body = body}.request());
    ASSERT_EQ(r.status, PutStatus::ok) << r.detail;
    ASSERT_EQ(s.sync(r.end()), PutStatus::ok);
    acked.push_back(body);
  };
  for (int i = 0; i < 5; ++i) ASSERT_NO_FATAL_FAILURE(put("before the checkpoint " + std::to_string(i)));
  s.run_for(std::chrono::seconds(2));  // the queue is flushed and a checkpoint covers these five
  for (int i = 0; i < 4; ++i) ASSERT_NO_FATAL_FAILURE(put("only the log synced " + std::to_string(i)));

  s.crash(sim::CrashKind::process_kill);  // their queue units stay in the page cache, unsynced
  ASSERT_EQ(s.open(), "");                // the replay finds them equal
  s.run_for(std::chrono::seconds(2));     // the next checkpoint covers them
  s.crash(sim::CrashKind::power_loss);
  ASSERT_EQ(s.open(), "");

  EXPECT_EQ(s.store().max_offset("T", QueueId(0)).value(), 9) << "every acknowledged message is still in its queue";
  std::vector<std::string> served;
  ASSERT_NO_FATAL_FAILURE(read_queue(s.store(), served));
  EXPECT_EQ(served, acked);
  const PutResult next = s.store().put_message(TestMessage{}.request());
  ASSERT_EQ(next.status, PutStatus::ok) << next.detail;
  EXPECT_EQ(next.queue_offset.value(), 9) << "no queue offset is used twice";
}

// A crash can leave a ConsumeQueue unit that decodes as a message but is garbage. Recovery
// checks the tail units against the records they point at and cuts the queue before them.
TEST(StoreCrashSim, GarbageConsumeQueueUnitsAreDroppedOnRecovery) {
  const std::vector<cq::Unit> garbage = {
      cq::Unit{PhysicalOffset(0), 0, 0},                    // filled below: another queue's record
      cq::Unit{PhysicalOffset(INT64_MAX - 8), 100, 7},     // far past the log (no overflow)
      cq::Unit{PhysicalOffset(3), 40, 0},                   // inside a record, not at its start
  };
  for (std::size_t g = 0; g < garbage.size(); ++g) {
    SCOPED_TRACE(fmt::format("garbage unit {}", g));
    sim::WorldOptions opts;
    opts.seed = 5;
    StoreConfig config = testing::small_config();
    config.consume_queue_units_per_file = 16;
    testing::SimStore s(opts, config);
    ASSERT_EQ(s.open(), "");
    for (int i = 0; i < 3; ++i) ASSERT_TRUE(s.store().put_message(TestMessage{}.request()).stored());
    TestMessage other;
    other.queue_id = QueueId(1);
    const PutResult r1 = s.store().put_message(other.request());
    ASSERT_TRUE(r1.stored());
    ASSERT_EQ(s.shutdown(), "");

    // Unit 3 of T:0, written and synced behind the store's back.
    cq::Unit u = garbage[g];
    if (g == 0) u = cq::Unit{r1.wrote_offset, static_cast<std::int32_t>(r1.wrote_bytes), 0};
    std::array<std::uint8_t, cq::kUnitBytes> bytes{};
    cq::encode_unit(u, bytes.data());
    auto file = s.node().fs().open("store/consumequeue/T/0/" + offset_file_name(0), OpenOptions{});
    ASSERT_TRUE(file.ok()) << file.error().to_string();
    ASSERT_TRUE((*file)->pwrite(3 * cq::kUnitBytes, bytes).ok());
    auto synced = s.world().run_task(s.node().id(), sync_file(file->get()), std::chrono::seconds(5));
    ASSERT_TRUE(synced.ok() && synced.value->ok());
    file->reset();
    s.crash();

    ASSERT_EQ(s.open(), "");
    EXPECT_EQ(s.store().max_offset("T", QueueId(0)).value(), 3);
    const PutResult r = s.store().put_message(TestMessage{}.request());
    ASSERT_TRUE(r.stored());
    EXPECT_EQ(r.queue_offset.value(), 3);
    auto got = s.store().get_messages("T", QueueId(0), QueueOffset(0), 16, nullptr);
    ASSERT_EQ(got.messages.size(), 4u);
    for (const FileView& v : got.messages) {
      const RecordRead rec = testing::decode(v);
      ASSERT_EQ(rec.kind, RecordKind::message) << rec.detail;
      EXPECT_EQ(rec.fields.queue_id.value(), 0);
    }
  }
}

}  // namespace
}  // namespace ferry::store
