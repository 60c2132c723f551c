// The leader's decisions against a group and a set of alive brokers: RocketMQ's check order and
// codes, the election policy's order, and that each verdict's event does what the reply says.
#include "controller/decisions.h"

#include <gtest/gtest.h>

namespace ferry::controller {
namespace {

class FakeLiveness final : public Liveness {
 public:
  void set(ReplicaId id, Epoch epoch, std::int64_t max_offset, std::int32_t priority = 0) {
    BrokerLiveInfo info;
    info.name = "broker-a";
    info.id = id;
    info.epoch = epoch;
    info.max_offset = max_offset;
    info.election_priority = priority;
    alive_[id] = info;
  }
  void kill(ReplicaId id) { alive_.erase(id); }
  const BrokerLiveInfo* alive(const std::string& name, ReplicaId id) const override {
    if (name != "broker-a") return nullptr;
    auto it = alive_.find(id);
    return it == alive_.end() ? nullptr : &it->second;
  }

 private:
  std::map<ReplicaId, BrokerLiveInfo> alive_;
};

// broker-a with replicas 1..3, master 1 (epoch 1), SyncStateSet {1,2} (epoch 2).
ReplicasInfo group() {
  ReplicasInfo info;
  for (ReplicaId id = 1; id <= 3; ++id) {
    const std::string addr = "10.0.0." + std::to_string(id) + ":10911";
    EXPECT_EQ(info.apply(ApplyReplicaIdEvent{"c", "broker-a", id, addr, addr + ";1"}), Applied::changed);
  }
  EXPECT_EQ(info.apply(ElectMasterEvent{"broker-a", 1, 0}), Applied::changed);
  EXPECT_EQ(info.apply(AlterSyncStateSetEvent{"broker-a", 1, 1, 1, {1, 2}}), Applied::changed);
  return info;
}

TEST(DecideElect, TheFirstElectionTakesTheBrokerThatAsks) {
  ReplicasInfo info;
  ASSERT_EQ(info.apply(ApplyReplicaIdEvent{"c", "broker-a", 1, "a:1", "a:1;1"}), Applied::changed);
  ASSERT_EQ(info.apply(ApplyReplicaIdEvent{"c", "broker-a", 2, "b:1", "b:1;1"}), Applied::changed);
  FakeLiveness alive;
  Verdict v = decide_elect(info, ElectRequest{"broker-a", 2, false}, alive, false);
  ASSERT_EQ(v.code, code::SUCCESS) << v.remark;
  ASSERT_TRUE(v.event.has_value());
  EXPECT_EQ(info.apply(*v.event), Applied::changed);
  EXPECT_EQ(info.find("broker-a")->master, 2);
  EXPECT_EQ(info.find("broker-a")->master_epoch, 1);
}

TEST(DecideElect, AnOperatorCannotDesignateADeadReplicaEvenForTheFirstElection) {
  ReplicasInfo info;
  ASSERT_EQ(info.apply(ApplyReplicaIdEvent{"c", "broker-a", 1, "a:1", "a:1;1"}), Applied::changed);
  FakeLiveness alive;
  Verdict v = decide_elect(info, ElectRequest{"broker-a", 1, true}, alive, false);
  EXPECT_EQ(v.code, code::CONTROLLER_ELECT_MASTER_FAILED) << v.remark;
  EXPECT_FALSE(v.event.has_value());
  alive.set(1, 0, 0);
  EXPECT_EQ(decide_elect(info, ElectRequest{"broker-a", 1, true}, alive, false).code, code::SUCCESS);
}

TEST(DecideElect, AnUnregisteredGroupMustRegisterFirst) {
  ReplicasInfo info;
  FakeLiveness alive;
  EXPECT_EQ(decide_elect(info, ElectRequest{"broker-x", 1, false}, alive, false).code,
            code::CONTROLLER_BROKER_NEED_TO_BE_REGISTERED);
}

TEST(DecideElect, AnAliveMasterStays) {
  ReplicasInfo info = group();
  FakeLiveness alive;
  alive.set(1, 1, 100);
  alive.set(2, 1, 100);
  Verdict v = decide_elect(info, ElectRequest{"broker-a", kNoReplica, false}, alive, false);
  EXPECT_EQ(v.code, code::CONTROLLER_MASTER_STILL_EXIST);
  EXPECT_FALSE(v.event.has_value());
}

TEST(DecideElect, ADeadMasterIsReplacedFromTheSyncStateSetOnly) {
  ReplicasInfo info = group();
  FakeLiveness alive;
  alive.set(2, 1, 100);
  alive.set(3, 1, 900);  // further ahead, but not in the SyncStateSet
  Verdict v = decide_elect(info, ElectRequest{"broker-a", kNoReplica, false}, alive, false);
  ASSERT_EQ(v.code, code::SUCCESS) << v.remark;
  ASSERT_EQ(info.apply(*v.event), Applied::changed);
  EXPECT_EQ(info.find("broker-a")->master, 2);
  EXPECT_EQ(info.find("broker-a")->master_epoch, 2);
  EXPECT_EQ(info.find("broker-a")->sync_state_set, (std::set<ReplicaId>{2}));
}

TEST(DecideElect, NobodyInSyncAliveRecordsNoMasterWhenTheControllerElects) {
  ReplicasInfo info = group();
  FakeLiveness alive;
  alive.set(3, 1, 900);
  Verdict v = decide_elect(info, ElectRequest{"broker-a", kNoReplica, false}, alive, false);
  EXPECT_EQ(v.code, code::CONTROLLER_MASTER_NOT_AVAILABLE);
  ASSERT_TRUE(v.event.has_value());
  ASSERT_EQ(info.apply(*v.event), Applied::changed);
  EXPECT_FALSE(info.find("broker-a")->master.has_value());
  EXPECT_EQ(info.find("broker-a")->master_epoch, 2) << "the old master is fenced";
  // A broker asking gets ELECT_MASTER_FAILED and no event.
  Verdict asked = decide_elect(info, ElectRequest{"broker-a", 3, false}, alive, false);
  EXPECT_EQ(asked.code, code::CONTROLLER_ELECT_MASTER_FAILED);
  EXPECT_FALSE(asked.event.has_value());
}

TEST(DecideElect, UncleanElectionTakesAnyAliveReplicaWhenAllowed) {
  ReplicasInfo info = group();
  FakeLiveness alive;
  alive.set(3, 1, 900);
  Verdict v = decide_elect(info, ElectRequest{"broker-a", kNoReplica, false}, alive, true);
  ASSERT_EQ(v.code, code::SUCCESS) << v.remark;
  ASSERT_EQ(info.apply(*v.event), Applied::changed);
  EXPECT_EQ(info.find("broker-a")->master, 3);
}

TEST(ChooseMaster, HighestEpochThenOffsetThenLowestPriorityThenLowestId) {
  ReplicasInfo info = group();
  ASSERT_EQ(info.apply(AlterSyncStateSetEvent{"broker-a", 1, 1, 2, {1, 2, 3}}), Applied::changed);
  const BrokerSet& set = *info.find("broker-a");
  FakeLiveness alive;
  alive.set(2, 1, 500, 5);
  alive.set(3, 2, 100, 5);
  EXPECT_EQ(choose_master(set, alive, false, std::nullopt), 3) << "epoch first";
  alive.set(3, 1, 400, 5);
  EXPECT_EQ(choose_master(set, alive, false, std::nullopt), 2) << "then max offset";
  alive.set(3, 1, 500, 1);
  EXPECT_EQ(choose_master(set, alive, false, std::nullopt), 3) << "then priority";
  alive.set(3, 1, 500, 5);
  EXPECT_EQ(choose_master(set, alive, false, std::nullopt), 2) << "then id";
  EXPECT_EQ(choose_master(set, alive, false, ReplicaId{3}), 3) << "a designated replica";
  alive.kill(3);
  EXPECT_EQ(choose_master(set, alive, false, ReplicaId{3}), std::nullopt)
      << "a designated replica that is dead: nobody";
}

TEST(DecideAlter, RocketMqCheckOrderAndCodes) {
  ReplicasInfo info = group();
  FakeLiveness alive;
  alive.set(1, 1, 0);
  alive.set(2, 1, 0);
  auto alter = [&](ReplicaId master, Epoch me, Epoch se, std::set<ReplicaId> s) {
    return decide_alter(info, AlterRequest{"broker-a", master, me, se, std::move(s)}, alive).code;
  };
  EXPECT_EQ(decide_alter(info, AlterRequest{"broker-x", 1, 1, 2, {1}}, alive).code,
            code::CONTROLLER_ALTER_SYNC_STATE_SET_FAILED);
  EXPECT_EQ(alter(1, 1, 2, {1, 2}), code::CONTROLLER_ALTER_SYNC_STATE_SET_FAILED) << "unchanged";
  EXPECT_EQ(alter(2, 1, 2, {1}), code::CONTROLLER_INVALID_MASTER);
  EXPECT_EQ(alter(1, 0, 2, {1}), code::CONTROLLER_FENCED_MASTER_EPOCH);
  EXPECT_EQ(alter(1, 1, 1, {1}), code::CONTROLLER_FENCED_SYNC_STATE_SET_EPOCH);
  EXPECT_EQ(alter(1, 1, 2, {1, 7}), code::CONTROLLER_INVALID_REPLICAS);
  EXPECT_EQ(alter(1, 1, 2, {1, 3}), code::CONTROLLER_BROKER_NOT_ALIVE);
  alive.set(3, 1, 0);
  EXPECT_EQ(alter(1, 1, 2, {2, 3}), code::CONTROLLER_ALTER_SYNC_STATE_SET_FAILED) << "without the master";
  Verdict ok = decide_alter(info, AlterRequest{"broker-a", 1, 1, 2, {1, 2, 3}}, alive);
  ASSERT_EQ(ok.code, code::SUCCESS) << ok.remark;
  ASSERT_EQ(info.apply(*ok.event), Applied::changed);
  EXPECT_EQ(info.find("broker-a")->sync_state_set_epoch, 3);
}

TEST(DecideApplyId, FreeIdsAndRetriesAreAcceptedTakenOnesAndBadCodesRefused) {
  ReplicasInfo info = group();
  EXPECT_EQ(next_replica_id(info, "broker-a"), 4);
  EXPECT_EQ(next_replica_id(info, "broker-new"), 1);
  Verdict fresh = decide_apply_id(info, ApplyIdRequest{"c", "broker-a", 4, "10.0.0.4:10911;7"});
  ASSERT_EQ(fresh.code, code::SUCCESS) << fresh.remark;
  ASSERT_TRUE(fresh.event.has_value());
  ASSERT_EQ(info.apply(*fresh.event), Applied::changed);
  EXPECT_EQ(info.find("broker-a")->address_of(4), "10.0.0.4:10911");
  Verdict retry = decide_apply_id(info, ApplyIdRequest{"c", "broker-a", 4, "10.0.0.4:10911;7"});
  EXPECT_EQ(retry.code, code::SUCCESS);
  EXPECT_FALSE(retry.event.has_value());
  EXPECT_EQ(decide_apply_id(info, ApplyIdRequest{"c", "broker-a", 4, "10.0.0.5:10911;8"}).code,
            code::CONTROLLER_BROKER_ID_INVALID);
  EXPECT_EQ(decide_apply_id(info, ApplyIdRequest{"c", "broker-new", 2, "x:1;1"}).code,
            code::CONTROLLER_BROKER_ID_INVALID);
  EXPECT_EQ(decide_apply_id(info, ApplyIdRequest{"c", "broker-a", 5, "no-separator"}).code,
            code::CONTROLLER_BROKER_ID_INVALID);
}

TEST(DecideRegister, UnknownIdsMustApplyAndAMovedBrokerUpdatesItsAddress) {
  ReplicasInfo info = group();
  EXPECT_EQ(decide_register(info, "broker-a", 9, "x:1").code, code::CONTROLLER_BROKER_NEED_TO_BE_REGISTERED);
  Verdict same = decide_register(info, "broker-a", 2, "10.0.0.2:10911");
  EXPECT_EQ(same.code, code::SUCCESS);
  EXPECT_FALSE(same.event.has_value());
  Verdict moved = decide_register(info, "broker-a", 2, "10.0.0.20:10911");
  ASSERT_TRUE(moved.event.has_value());
  ASSERT_EQ(info.apply(*moved.event), Applied::changed);
  EXPECT_EQ(info.find("broker-a")->address_of(2), "10.0.0.20:10911");
}

TEST(DecideClean, AliveBrokersAndBadIdsAreRefusedUnlessCleaningTheLiving) {
  ReplicasInfo info = group();
  FakeLiveness alive;
  alive.set(1, 1, 0);
  EXPECT_EQ(decide_clean(info, CleanRequest{"broker-a", "", false}, alive).code,
            code::CONTROLLER_INVALID_CLEAN_BROKER_METADATA);
  EXPECT_EQ(decide_clean(info, CleanRequest{"broker-a", "1", false}, alive).code,
            code::CONTROLLER_INVALID_CLEAN_BROKER_METADATA);
  EXPECT_EQ(decide_clean(info, CleanRequest{"broker-a", "2;x", false}, alive).code,
            code::CONTROLLER_INVALID_CLEAN_BROKER_METADATA);
  EXPECT_EQ(decide_clean(info, CleanRequest{"broker-b", "", false}, alive).code,
            code::CONTROLLER_INVALID_CLEAN_BROKER_METADATA);
  Verdict dead = decide_clean(info, CleanRequest{"broker-a", "2;3", false}, alive);
  ASSERT_EQ(dead.code, code::SUCCESS) << dead.remark;
  ASSERT_EQ(info.apply(*dead.event), Applied::changed);
  EXPECT_EQ(info.find("broker-a")->replicas.size(), 1u);
  Verdict living = decide_clean(info, CleanRequest{"broker-a", "", true}, alive);
  ASSERT_EQ(living.code, code::SUCCESS);
  ASSERT_EQ(info.apply(*living.event), Applied::changed);
  EXPECT_EQ(info.find("broker-a"), nullptr);
}

}  // namespace
}  // namespace ferry::controller
