// The MessageStore on real files with the production runtime (mmap'd files, syncs and
// fallocate on the I/O thread): put, get, key queries, SYNC_FLUSH, roll-over with
// pre-allocation, clean restart and restart after an unclean stop, on a temporary directory.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <string>

#include "runtime/asio/asio_runtime.h"
#include "tests/store/store_fixture.h"
#include "tests/support/temp_dir.h"

namespace ferry::store {
namespace {

using testing::TestMessage;

Task<Status> open_task(MessageStore* s) { co_return co_await s->open(); }
Task<Status> shutdown_task(MessageStore* s) { co_return co_await s->shutdown(); }
Task<PutStatus> durable_task(MessageStore* s, PhysicalOffset end) { co_return co_await s->wait_durable(end); }
Task<void> sleep_task(Runtime* rt, Duration d) { co_await rt->sleep(d); }

class StoreAsioTest : public ::testing::Test {
 protected:
  StoreAsioTest() {
    config_ = testing::small_config();
    config_.commit_log_file_size_bytes = 64 * 1024;
    config_.message_size_max_bytes = 16 * 1024;
    config_.consume_queue_units_per_file = 64;
    config_.index_geometry = IndexGeometry{64, 256};
    // The real disk is shared with the rest of CI; only a truly full one may refuse puts here
    // (disk pressure is tested in simulation: store_cleanup_sim_test, next_file_room_test).
    config_.disk_max_used_space_ratio_pct = 100;
    config_.disk_space_clean_forcibly_ratio_pct = 100;
    config_.disk_space_warning_level_ratio_pct = 100;
  }
  ~StoreAsioTest() override {  // the store and the runtime go before the directory
    store_.reset();
    rt_.reset();
  }

  // A new runtime (a new process, as far as the files are concerned) and an opened store.
  void boot(bool start = true) {
    store_.reset();
    rt_.reset();
    AsioRuntime::Options options;
    options.node_name = "store-asio";
    options.data_root = dir_ / "data";
    options.offload_threads = 1;
    rt_ = std::make_unique<AsioRuntime>(options);
    store_ = std::make_unique<MessageStore>(*rt_, config_);
    const Status st = rt_->block_on(open_task(store_.get()));
    ASSERT_TRUE(st.ok()) << st.error().to_string();
    if (start) store_->start();
  }
  PutResult put(int i, std::int32_t queue = 0) {
    TestMessage m;
    m.queue_id = QueueId(queue);
    m.body = fmt::format("m{}-{}", i, std::string(static_cast<std::size_t>(100 + (i * 97) % 3000), 'x'));
    m.keys(fmt::format("key{}", i));
    m.tags(i % 2 == 0 ? "even" : "odd");
    return store_->put_message(m.request());
  }
  // Every message of queue `q`, in order, as bodies.
  std::vector<std::string> read_all(std::int32_t q) {
    std::vector<std::string> out;
    QueueOffset at = store_->min_offset("T", QueueId(q));
    while (at < store_->max_offset("T", QueueId(q))) {
      auto g = store_->get_messages("T", QueueId(q), at, 32, nullptr);
      EXPECT_EQ(g.status, GetStatus::found);
      if (g.status != GetStatus::found) break;
      for (const FileView& v : g.messages) {
        const RecordRead r = testing::decode(v);
        EXPECT_EQ(r.kind, RecordKind::message) << r.detail;
        out.push_back(testing::body_of(v));
      }
      at = g.next_begin_offset;
    }
    return out;
  }

  ferry::testing::TempDir dir_{"store-asio"};
  StoreConfig config_;
  std::unique_ptr<AsioRuntime> rt_;
  std::unique_ptr<MessageStore> store_;
};

TEST_F(StoreAsioTest, PutGetQueryAndCleanRestart) {
  boot();
  std::vector<std::string> expected[2];
  for (int i = 0; i < 200; ++i) {
    const PutResult r = put(i, i % 2);
    ASSERT_EQ(r.status, PutStatus::ok) << r.detail;
    EXPECT_EQ(r.queue_offset.value(), i / 2);
    expected[i % 2].push_back(fmt::format("m{}-", i));
  }
  ASSERT_GT(store_->commit_log().files().file_count(), 3u) << "the test should roll over";
  auto check = [&] {
    for (int q = 0; q < 2; ++q) {
      const auto bodies = read_all(q);
      ASSERT_EQ(bodies.size(), expected[q].size());
      for (std::size_t i = 0; i < bodies.size(); ++i) EXPECT_EQ(bodies[i].rfind(expected[q][i], 0), 0u) << i;
    }
    auto found = store_->query_by_key("T", "key123", 8, 0, INT64_MAX);
    ASSERT_TRUE(found.ok());
    ASSERT_EQ(found->messages.size(), 1u);
    EXPECT_EQ(testing::body_of(found->messages[0]).rfind("m123-", 0), 0u);
    const SubscriptionFilter even = *SubscriptionFilter::compile(ExpressionType::tag, "even");
    auto g = store_->get_messages("T", QueueId(1), QueueOffset(0), 8, &even);
    EXPECT_EQ(g.status, GetStatus::no_matched_message) << "queue 1 holds odd messages only";
  };
  check();
  const Status st = rt_->block_on(shutdown_task(store_.get()));
  ASSERT_TRUE(st.ok()) << st.error().to_string();

  boot();
  EXPECT_TRUE(store_->recovery().clean_shutdown);
  EXPECT_EQ(store_->recovery().commit_log.dropped_bytes, 0);
  check();
  const PutResult r = put(200, 0);
  ASSERT_EQ(r.status, PutStatus::ok) << r.detail;
  EXPECT_EQ(r.queue_offset.value(), 100);
}

TEST_F(StoreAsioTest, SyncFlushAndRecoveryAfterAnUncleanStop) {
  config_.flush_mode = FlushMode::sync_flush;
  boot();
  PhysicalOffset end;
  for (int i = 0; i < 60; ++i) {
    const PutResult r = put(i);
    ASSERT_EQ(r.status, PutStatus::ok) << r.detail;
    end = r.end();
    if (i % 10 == 9) {
      EXPECT_EQ(rt_->block_on(durable_task(store_.get(), end)), PutStatus::ok);
    }
  }
  EXPECT_GE(store_->commit_log().flushed_offset().value(), end.value());
  // Let the queue flush loop write a checkpoint, then stop without shutdown(): the abort file
  // stays, and the next open recovers from the checkpoint.
  rt_->block_on(sleep_task(rt_.get(), std::chrono::milliseconds(1200)));
  boot();
  EXPECT_FALSE(store_->recovery().clean_shutdown);
  ASSERT_TRUE(store_->recovery().checkpoint.has_value());
  EXPECT_EQ(store_->max_phy_offset().value(), end.value());
  EXPECT_EQ(read_all(0).size(), 60u);
  EXPECT_EQ(store_->query_by_key("T", "key59", 8, 0, INT64_MAX)->messages.size(), 1u);
  const PutResult r = put(60);
  ASSERT_EQ(r.status, PutStatus::ok) << r.detail;
  EXPECT_EQ(r.queue_offset.value(), 60);
  EXPECT_EQ(rt_->block_on(durable_task(store_.get(), r.end())), PutStatus::ok);
}

TEST_F(StoreAsioTest, NextCommitLogFileIsPreallocated) {
  boot();
  ASSERT_EQ(put(0).status, PutStatus::ok);
  rt_->block_on(sleep_task(rt_.get(), std::chrono::milliseconds(50)));
  EXPECT_TRUE(store_->commit_log().files().next_ready());
  const std::string next = dir_ / "data/store/commitlog/00000000000000065536";
  ASSERT_TRUE(std::filesystem::exists(next));
  EXPECT_EQ(std::filesystem::file_size(next), 64u * 1024u);
  // Rolling over onto it keeps the order.
  for (int i = 1; i < 60; ++i) ASSERT_EQ(put(i).status, PutStatus::ok);
  ASSERT_GE(store_->commit_log().files().file_count(), 2u);
  const auto bodies = read_all(0);
  ASSERT_EQ(bodies.size(), 60u);
  for (int i = 0; i < 60; ++i) EXPECT_EQ(bodies[static_cast<std::size_t>(i)].rfind(fmt::format("m{}-", i), 0), 0u);
}

}  // namespace
}  // namespace ferry::store
