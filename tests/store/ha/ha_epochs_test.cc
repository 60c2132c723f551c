// Controller mode's replication (RocketMQ 5's AutoSwitch protocol, store/ha/ha_format.h) between
// two stores in the simulator, driven by hand as the broker would: the handshake carries the
// epochs, a rejoining replica cuts its log to where they agree, batches carry their epoch, and a
// SYNC_MASTER under allAckInSyncStateSet waits for every member of the SyncStateSet.
#include <gtest/gtest.h>

#include <memory>
#include <optional>

#include "runtime/log.h"
#include "sim/world.h"
#include "store/ha/epoch_file.h"
#include "store/ha/ha_master.h"
#include "store/ha/ha_slave.h"
#include "store/message_store.h"
#include "tests/store/one_node.h"
#include "tests/store/store_fixture.h"
#include "tests/support/replica_logs.h"

namespace ferry::store::ha {
namespace {

using namespace std::chrono_literals;
using store::testing::TestMessage;

constexpr std::uint16_t kHaPort = 10912;

// One replica: a store, its epochs, and both HA roles (as a broker holds them).
struct Replica {
  Replica(sim::World& world, const std::string& name, const HaConfig& ha) : id(world.add_node(name)) {
    Runtime& rt = world.node(id);
    StoreConfig c = store::testing::small_config();
    c.commit_log_file_size_bytes = 4096;
    store = std::make_unique<MessageStore>(rt, c);
    epochs = std::make_unique<EpochFile>(rt, "store/" + std::string(kEpochFileName));
    master = std::make_unique<HaMaster>(rt, *store, ha);
    slave = std::make_unique<HaSlave>(rt, *store, ha);
  }
  sim::NodeId id;
  std::unique_ptr<MessageStore> store;
  std::unique_ptr<EpochFile> epochs;
  std::unique_ptr<HaMaster> master;
  std::unique_ptr<HaSlave> slave;
};

class HaEpochsTest : public ::testing::Test {
 protected:
  HaEpochsTest() : quiet_(quiet()), world_(store::testing::one_node_options()) {
    ha_.all_ack_in_sync_state_set = true;
    ha_.heartbeat_interval = 1s;
    a_ = std::make_unique<Replica>(world_, "a", ha_);
    b_ = std::make_unique<Replica>(world_, "b", ha_);
  }
  void SetUp() override {
    for (Replica* r : {a_.get(), b_.get()}) {
      Runtime& rt = world_.node(r->id);
      ASSERT_TRUE(run(*r, r->store->open()).ok());
      r->store->set_append_listener([m = r->master.get()](PhysicalOffset end) { m->on_appended(end); });
      ASSERT_TRUE(r->epochs->load(r->store->max_phy_offset()).ok());
      r->master->set_epochs(r->epochs.get());
      ASSERT_TRUE(r->master->start(Endpoint{world_.node(r->id).host(), kHaPort}).ok());
      r->slave->set_epochs(r->epochs.get(), r == a_.get() ? 1 : 2);
      rt.spawn(r->slave->run(), "ha-slave");
    }
  }
  ~HaEpochsTest() override {
    // The components outlive the nodes' tasks.
    world_.kill(a_->id);
    world_.kill(b_->id);
  }

  template <typename T>
  T run(Replica& r, Task<T> task) {
    auto out = world_.run_task(r.id, std::move(task), 1min);
    if (!out.ok()) throw std::runtime_error("the task did not finish: " + out.report.message);
    if constexpr (!std::is_void_v<T>) return std::move(*out.value);
  }
  void put(Replica& r, int n, const std::string& tag) {
    for (int i = 0; i < n; ++i) {
      const TestMessage m{.queue_id = QueueId(i % 2), .body = fmt::format("{}-{}", tag, i)};
      ASSERT_EQ(r.store->put_message(m.request()).status, PutStatus::ok);
    }
  }
  std::string ha_address(Replica& r) { return fmt::format("{}:{}", world_.node(r.id).host(), kHaPort); }
  // The first differing byte of the two logs, or nullopt when they are the same.
  static std::optional<std::int64_t> first_difference(Replica& x, Replica& y) {
    if (x.store->max_phy_offset() != y.store->max_phy_offset()) {
      return std::min(x.store->max_phy_offset(), y.store->max_phy_offset()).value();
    }
    return ferry::testing::first_difference(x.store->commit_log(), y.store->commit_log(),
                                            std::max(x.store->min_phy_offset(), y.store->min_phy_offset()),
                                            x.store->max_phy_offset());
  }

  static bool quiet() {
    if (std::getenv("FERRY_LOG") == nullptr) set_default_log_level(spdlog::level::warn);
    return true;
  }
  bool quiet_;
  sim::World world_;
  HaConfig ha_;
  std::unique_ptr<Replica> a_;
  std::unique_ptr<Replica> b_;
};

// The story the controller exists for: A is master of epoch 1 and B its slave; B is elected
// (epoch 2) while A still took 5 messages B never got; A comes back as B's slave, cuts those 5,
// and ends with B's log byte for byte, B's epochs and B's queue offsets.
TEST_F(HaEpochsTest, AnOldMasterRejoinsAsASlaveAndKeepsOnlyWhatItsGroupAgreedOn) {
  ASSERT_TRUE(run(*a_, a_->epochs->append(1, PhysicalOffset(0))).ok());
  a_->master->set_sync_state_set(1, {1});
  b_->slave->set_master(ha_address(*a_));
  put(*a_, 20, "epoch1");
  world_.run_for(5s);
  ASSERT_EQ(b_->store->max_phy_offset(), a_->store->max_phy_offset());
  EXPECT_EQ(b_->epochs->cache().entries(), a_->epochs->cache().entries());
  EXPECT_EQ(a_->master->caught_up_outside(), (std::set<std::int64_t>{2}));

  // B joins the SyncStateSet: a put now waits for it.
  a_->master->set_sync_state_set(1, {1, 2});
  put(*a_, 1, "acked");
  EXPECT_EQ(run(*a_, a_->master->wait_replicated(a_->store->max_phy_offset())), PutStatus::ok);
  EXPECT_EQ(b_->store->max_phy_offset(), a_->store->max_phy_offset());
  world_.run_for(2s);
  EXPECT_EQ(a_->master->confirm_offset(), a_->store->max_phy_offset());
  EXPECT_EQ(b_->slave->confirm_offset(), a_->store->max_phy_offset());

  // B loses A; A takes 5 more (never acknowledged under allAck: B is a member without a link).
  b_->slave->set_master(std::nullopt);
  world_.run_for(2s);
  const PhysicalOffset agreed = b_->store->max_phy_offset();
  put(*a_, 5, "lost");
  EXPECT_EQ(run(*a_, a_->master->wait_replicated(a_->store->max_phy_offset())), PutStatus::flush_slave_timeout);
  EXPECT_EQ(a_->master->confirm_offset(), agreed) << "a member without a link holds the confirm offset";

  // B is elected: epoch 2 from its end; it takes 7.
  ASSERT_TRUE(run(*b_, b_->epochs->append(2, b_->store->max_phy_offset())).ok());
  b_->master->set_sync_state_set(2, {2});
  put(*b_, 7, "epoch2");

  // A comes back as B's slave.
  a_->slave->set_master(ha_address(*b_));
  world_.run_for(10s);
  EXPECT_EQ(a_->slave->status().truncations, 1u);
  EXPECT_EQ(a_->slave->status().truncated_to, agreed);
  EXPECT_EQ(first_difference(*a_, *b_), std::nullopt);
  EXPECT_EQ(a_->epochs->cache().entries(),
            (std::vector<EpochEntry>{{1, PhysicalOffset(0)}, {2, agreed}}));
  for (const QueueId q : {QueueId(0), QueueId(1)}) {
    EXPECT_EQ(a_->store->max_offset("T", q), b_->store->max_offset("T", q)) << "queue " << q.value();
  }
  // The messages A lost are gone; B's are served at their offsets.
  auto got = a_->store->get_messages("T", QueueId(0), QueueOffset(0), 64, nullptr);
  ASSERT_EQ(got.status, GetStatus::found);
  std::vector<std::string> bodies;
  for (const auto& v : got.messages) bodies.push_back(store::testing::body_of(v));
  for (const std::string& body : bodies) EXPECT_EQ(body.find("lost"), std::string::npos) << body;
  EXPECT_EQ(bodies.back(), "epoch2-6");
  // The epoch file on A's disk says the same after a restart would read it.
  EpochFile reread(world_.node(a_->id), a_->epochs->path());
  ASSERT_TRUE(reread.load(a_->store->max_phy_offset()).ok());
  EXPECT_EQ(reread.cache().entries(), a_->epochs->cache().entries());
}

// A replica whose epochs share none with the master's is refused with the way out in the reason,
// and keeps its log.
TEST_F(HaEpochsTest, ALogSharingNoEpochWithTheMasterIsKeptAndTheLinkRefused) {
  ASSERT_TRUE(run(*a_, a_->epochs->append(3, PhysicalOffset(0))).ok());
  ASSERT_TRUE(run(*b_, b_->epochs->append(4, PhysicalOffset(0))).ok());
  put(*a_, 4, "a");
  put(*b_, 6, "b");
  const PhysicalOffset b_end = b_->store->max_phy_offset();
  b_->slave->set_master(ha_address(*a_));
  world_.run_for(5s);
  EXPECT_EQ(b_->store->max_phy_offset(), b_end);
  EXPECT_NE(b_->slave->status().last_drop.find("share none"), std::string::npos) << b_->slave->status().last_drop;
  EXPECT_EQ(b_->slave->status().truncations, 0u);
}

}  // namespace
}  // namespace ferry::store::ha
