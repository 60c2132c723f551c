// CommitLog pre-allocation on the simulator: once started, the store keeps the next CommitLog
// file allocated (File::allocate, in a spawned task); roll-overs that find it ready and
// roll-overs that race with it both keep every message, in order, across a crash.
#include <gtest/gtest.h>

#include "tests/store/sim_store.h"
#include "tests/store/store_fixture.h"

namespace ferry::store {
namespace {

using testing::SimStore;
using testing::TestMessage;

TEST(StorePreallocateSim, NextFileIsReadyAheadOfNeed) {
  SimStore s(sim::WorldOptions{}, testing::small_config());
  ASSERT_EQ(s.open(/*start=*/false), "");
  ASSERT_EQ(s.store().put_message(TestMessage{}.request()).status, PutStatus::ok);
  s.run_for(std::chrono::milliseconds(10));
  EXPECT_FALSE(s.store().commit_log().files().next_ready()) << "nothing before start()";
  s.store().start();
  s.run_for(std::chrono::milliseconds(10));
  EXPECT_TRUE(s.store().commit_log().files().next_ready());
  auto names = s.node().fs().list("store/commitlog");
  ASSERT_TRUE(names.ok());
  EXPECT_EQ(*names, (std::vector<std::string>{"00000000000000000000", "00000000000000001024"}));
  EXPECT_EQ(*s.node().fs().file_size("store/commitlog/00000000000000001024"), 1024u);
}

TEST(StorePreallocateSim, RollOversKeepEveryMessageInOrder) {
  int racing_total = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE(fmt::format("seed {}", seed));
    sim::WorldOptions opts;
    opts.seed = seed;
    opts.disk.torn_write_on_crash_ppm = 1'000'000;
    StoreConfig c = testing::small_config();
    c.flush_mode = FlushMode::sync_flush;
    SimStore s(opts, c);
    ASSERT_EQ(s.open(), "");
    Random& rnd = s.world().random();
    std::vector<std::string> bodies[2];
    int ready_rolls = 0;
    int racing_rolls = 0;
    for (int i = 0; i < 120; ++i) {
      TestMessage m;
      m.queue_id = QueueId(static_cast<std::int32_t>(rnd.below(2)));
      m.body = fmt::format("{}-{}-{}", seed, i, std::string(rnd.below(380), 'a' + static_cast<char>(i % 26)));
      const std::size_t files = s.store().commit_log().files().file_count();
      const bool ready = s.store().commit_log().files().next_ready();
      const PutResult r = s.store().put_message(m.request());
      ASSERT_EQ(r.status, PutStatus::ok) << r.detail;
      bodies[m.queue_id.value()].push_back(m.body);
      if (s.store().commit_log().files().file_count() > files) (ready ? ready_rolls : racing_rolls) += 1;
      // Sometimes let the pre-allocation finish, sometimes roll over while it is in flight.
      if (rnd.below(3) != 0) s.run_for(std::chrono::milliseconds(rnd.below(3)));
    }
    EXPECT_GT(ready_rolls, 0);
    racing_total += racing_rolls;
    ASSERT_EQ(s.sync(s.store().max_phy_offset()), PutStatus::ok);
    s.run_for(std::chrono::milliseconds(5));
    s.crash();
    ASSERT_EQ(s.open(), "");
    // No orphan file: the directory holds the log's files, plus at most the ready successor.
    const std::size_t listed = s.node().fs().list("store/commitlog")->size();
    EXPECT_GE(listed, s.store().commit_log().files().file_count());
    EXPECT_LE(listed, s.store().commit_log().files().file_count() + 1);
    for (int q = 0; q < 2; ++q) {
      std::vector<std::string> served;
      QueueOffset at(0);
      std::int64_t last_offset = -1;
      while (at < s.store().max_offset("T", QueueId(q))) {
        auto g = s.store().get_messages("T", QueueId(q), at, 32, nullptr);
        ASSERT_EQ(g.status, GetStatus::found);
        for (std::size_t k = 0; k < g.messages.size(); ++k) {
          const RecordRead rec = testing::decode(g.messages[k]);
          ASSERT_EQ(rec.kind, RecordKind::message) << rec.detail;
          EXPECT_EQ(rec.fields.queue_offset.value(), at.value() + static_cast<std::int64_t>(k));
          EXPECT_GT(rec.fields.physical_offset.value(), last_offset);
          last_offset = rec.fields.physical_offset.value();
          served.push_back(testing::body_of(g.messages[k]));
        }
        at = g.next_begin_offset;
      }
      EXPECT_EQ(served, bodies[q]) << "queue " << q << " (ready roll-overs " << ready_rolls
                                   << ", racing " << racing_rolls << ")";
    }
  }
  EXPECT_GT(racing_total, 0) << "no roll-over raced with a pre-allocation in flight";
}

}  // namespace
}  // namespace ferry::store
