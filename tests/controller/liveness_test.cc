// HeartbeatTable: who is alive at a given time, what a later heartbeat changes, and expiry.
#include "controller/liveness.h"

#include <gtest/gtest.h>

namespace ferry::controller {
namespace {

class StepClock final : public Clock {
 public:
  MonoTime now() const override { return now_; }
  WallMs wall_ms() const override { return 0; }
  void advance(Duration d) { now_ += d; }

 private:
  MonoTime now_{};
};

BrokerLiveInfo beat_of(ReplicaId id, Epoch epoch, std::int64_t max_offset, Duration timeout = 10s) {
  BrokerLiveInfo info;
  info.cluster = "DefaultCluster";
  info.name = "broker-a";
  info.id = id;
  info.address = "10.0.0." + std::to_string(id) + ":10911";
  info.epoch = epoch;
  info.max_offset = max_offset;
  info.timeout = timeout;
  return info;
}

TEST(HeartbeatTable, ABrokerIsAliveForItsTimeoutAfterItsLastHeartbeat) {
  StepClock clock;
  HeartbeatTable table(clock);
  table.beat(beat_of(1, 1, 100));
  clock.advance(10s);
  EXPECT_NE(table.alive("broker-a", 1), nullptr);
  clock.advance(1ms);
  EXPECT_EQ(table.alive("broker-a", 1), nullptr);
  EXPECT_NE(table.last("broker-a", 1), nullptr) << "kept until expire()";
  EXPECT_EQ(table.alive("broker-a", 2), nullptr);
}

TEST(HeartbeatTable, ExpireDropsOnlyTheSilentInKeyOrder) {
  StepClock clock;
  HeartbeatTable table(clock);
  table.beat(beat_of(3, 1, 0, 2s));
  table.beat(beat_of(1, 1, 0, 2s));
  table.beat(beat_of(2, 1, 0, 20s));
  clock.advance(3s);
  auto dropped = table.expire();
  ASSERT_EQ(dropped.size(), 2u);
  EXPECT_EQ(dropped[0].id, 1);
  EXPECT_EQ(dropped[1].id, 3);
  EXPECT_EQ(table.all().size(), 1u);
  EXPECT_NE(table.alive("broker-a", 2), nullptr);
}

TEST(HeartbeatTable, EpochAndOffsetsOnlyMoveForwardButTimeAlwaysRefreshes) {
  StepClock clock;
  HeartbeatTable table(clock);
  table.beat(beat_of(1, 2, 500));
  clock.advance(9s);
  table.beat(beat_of(1, 1, 900));  // an older epoch, reordered
  const BrokerLiveInfo* info = table.alive("broker-a", 1);
  ASSERT_NE(info, nullptr);
  EXPECT_EQ(info->epoch, 2);
  EXPECT_EQ(info->max_offset, 500);
  clock.advance(9s);
  EXPECT_NE(table.alive("broker-a", 1), nullptr) << "the reordered heartbeat still counts as life";
  table.beat(beat_of(1, 2, 700));
  EXPECT_EQ(table.alive("broker-a", 1)->max_offset, 700);
  table.forget("broker-a", 1);
  EXPECT_EQ(table.last("broker-a", 1), nullptr);
}

}  // namespace
}  // namespace ferry::controller
