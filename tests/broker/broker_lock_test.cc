// Queue locks for orderly consumers: LOCK_BATCH_MQ grants free queues and the caller's own,
// refuses queues another client holds, and grants them once that lock is 60 s old;
// UNLOCK_BATCH_MQ releases only the caller's locks.
#include "tests/broker/consumer_fixture.h"
#include "tests/support/broker_inspector.h"

using ferry::testing::BrokerInspector;

namespace ferry::broker::testing {
namespace {

using namespace std::chrono_literals;

class LockTest : public ConsumerTest {
 protected:
  std::vector<std::int32_t> lock(const std::string& client, const std::vector<std::int32_t>& queues) {
    Call c = call(lock_request(rc::LOCK_BATCH_MQ, "OG", client, queues));
    EXPECT_EQ(c.reply.code, code::SUCCESS) << c.remark();
    auto body = remoting::body::LockBatchResponseBody::decode(c.reply.body);
    EXPECT_TRUE(body.ok());
    std::vector<std::int32_t> out;
    if (body) {
      for (const auto& mq : body->lock_ok_mq_set) out.push_back(mq.queue_id.value());
    }
    return out;
  }
  void unlock(const std::string& client, const std::vector<std::int32_t>& queues) {
    Call c = call(lock_request(rc::UNLOCK_BATCH_MQ, "OG", client, queues));
    EXPECT_EQ(c.reply.code, code::SUCCESS) << c.remark();
  }
};

TEST_F(LockTest, GrantedRefusedToAnotherClientExpiredAndUnlocked) {
  boot();
  using V = std::vector<std::int32_t>;
  EXPECT_EQ(lock("A", {1, 0}), (V{0, 1}));
  EXPECT_EQ(lock("B", {1, 2}), (V{2}));    // 1 is A's
  EXPECT_EQ(lock("A", {0, 1, 2}), (V{0, 1}));  // renews its own; 2 is B's
  unlock("B", {1});                        // not B's: no effect
  EXPECT_EQ(lock("B", {1}), V{});
  unlock("A", {1});
  EXPECT_EQ(lock("B", {1}), (V{1}));

  // A renews nothing for 61 s: its lock on 0 expires; B's renewed locks do not.
  run_for(30s);
  EXPECT_EQ(lock("B", {1, 2}), (V{1, 2}));
  run_for(31s);
  EXPECT_EQ(lock("A", {1, 2}), V{});
  EXPECT_EQ(lock("B", {0}), (V{0}));
  EXPECT_EQ(BrokerInspector(broker()).consumer_services().locks().lock_count(), 3u);

  // Another group's locks are separate.
  Call other = call(lock_request(rc::LOCK_BATCH_MQ, "OtherGroup", "A", {0}));
  auto body = remoting::body::LockBatchResponseBody::decode(other.reply.body);
  ASSERT_TRUE(body.ok());
  EXPECT_EQ(body->lock_ok_mq_set.size(), 1u);
}

// A broker forgets its locks when it stops, while a client trusts a confirmed lock for 30 s: a
// broker restarted on its store grants no lock for one lock lifetime (60 s), so another consumer
// cannot take a queue the first still processes. A broker with an empty store grants at once.
TEST_F(LockTest, ARestartedBrokerGrantsNoLockForOneLockLifetime) {
  boot();
  using V = std::vector<std::int32_t>;
  EXPECT_EQ(lock("A", {0, 1}), (V{0, 1})) << "a new broker grants at once";
  ASSERT_EQ(send(Msg{}).reply.code, code::SUCCESS);
  run_for(5s);  // flushed: the store shows it served (a power loss in its first instant looks new)
  crash_restart();
  EXPECT_EQ(lock("B", {0, 1}), V{}) << "B would hold a queue A still trusts";
  EXPECT_EQ(lock("A", {0}), V{});
  EXPECT_TRUE(BrokerInspector(broker()).consumer_services().locks().holding_off());
  run_for(59s);
  EXPECT_EQ(lock("B", {0}), V{});
  run_for(2s);
  EXPECT_EQ(lock("B", {0, 1}), (V{0, 1}));
  EXPECT_EQ(lock("A", {0}), V{}) << "B's now";
}

TEST_F(LockTest, TooManyQueuesInOneRequestIsRefused) {
  config_.lock_batch_queues_max = 4;
  boot();
  Call c = call(lock_request(rc::LOCK_BATCH_MQ, "OG", "A", {0, 1, 2, 3, 4}));
  EXPECT_EQ(c.reply.code, code::SYSTEM_ERROR);
  EXPECT_NE(c.remark().find("mqSet"), std::string::npos) << c.remark();
}

}  // namespace
}  // namespace ferry::broker::testing
