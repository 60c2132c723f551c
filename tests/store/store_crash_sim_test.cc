// Crash recovery on the simulator's disk: unsynced writes are lost or torn (with garbage
// sectors) at a crash; after restart every acknowledged SYNC_FLUSH message is intact, queues
// are dense, and nothing half-written is served. Swept over seeds.
#include <gtest/gtest.h>

#include "sim/node.h"
#include "sim/world.h"
#include "store/store_fixture.h"

namespace ferry::store {
namespace {

using testing::TestMessage;

struct Produced {
  std::vector<std::string> acked;  // bodies whose wait_durable returned ok
  std::vector<std::string> sent;   // every body stored (in order)
};

Task<Status> open_store(MessageStore* store) { co_return co_await store->open(); }

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
    // No garbage sectors: a garbage sector that also holds synced bytes (an acknowledged record
    // sharing its last sector with a later, unsynced one) destroys acknowledged data, and the
    // RocketMQ record format cannot pad to sector boundaries. See docs/store.md.
    opts.disk.corrupt_torn_sector_ppm = 0;
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
    world.crash(id);
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

}  // namespace
}  // namespace ferry::store
