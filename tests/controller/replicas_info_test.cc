// ReplicasInfo: what each committed event does to a broker group, when an event is fenced, and
// that the byte forms of events and of the whole state read back exactly and refuse damage.
#include "controller/replicas_info.h"

#include <gtest/gtest.h>

namespace ferry::controller {
namespace {

ApplyReplicaIdEvent apply_id(ReplicaId id, std::string address, std::string code = "") {
  if (code.empty()) code = address + ";100";
  return ApplyReplicaIdEvent{"DefaultCluster", "broker-a", id, address, code};
}

ReplicasInfo group_of_three() {
  ReplicasInfo info;
  EXPECT_EQ(info.apply(apply_id(1, "10.0.0.1:10911")), Applied::changed);
  EXPECT_EQ(info.apply(apply_id(2, "10.0.0.2:10911")), Applied::changed);
  EXPECT_EQ(info.apply(apply_id(3, "10.0.0.3:10911")), Applied::changed);
  return info;
}

TEST(ReplicasInfo, FirstIdCreatesTheGroupAndIdsCountUp) {
  ReplicasInfo info = group_of_three();
  const BrokerSet* set = info.find("broker-a");
  ASSERT_NE(set, nullptr);
  EXPECT_EQ(set->cluster, "DefaultCluster");
  EXPECT_EQ(set->replicas.size(), 3u);
  EXPECT_EQ(set->next_replica_id, 4);
  EXPECT_EQ(set->address_of(2), "10.0.0.2:10911");
  EXPECT_FALSE(set->master.has_value());
  EXPECT_EQ(set->master_epoch, 0);
}

TEST(ReplicasInfo, AnIdOtherThanOneCannotCreateAGroup) {
  ReplicasInfo info;
  EXPECT_EQ(info.apply(apply_id(2, "10.0.0.2:10911")), Applied::fenced);
  EXPECT_EQ(info.find("broker-a"), nullptr);
  EXPECT_EQ(info.applied_count(), 1u);
}

TEST(ReplicasInfo, ATakenIdIsFencedUnlessTheSameBrokerRetries) {
  ReplicasInfo info = group_of_three();
  EXPECT_EQ(info.apply(apply_id(2, "10.0.0.2:10911")), Applied::changed);  // same check code
  EXPECT_EQ(info.apply(apply_id(2, "10.0.0.9:10911")), Applied::fenced);
  EXPECT_EQ(info.find("broker-a")->address_of(2), "10.0.0.2:10911");
}

TEST(ReplicasInfo, ElectionMakesTheMasterTheWholeSyncStateSetAndGrowsBothEpochs) {
  ReplicasInfo info = group_of_three();
  ASSERT_EQ(info.apply(ElectMasterEvent{"broker-a", 1, 0}), Applied::changed);
  const BrokerSet* set = info.find("broker-a");
  EXPECT_EQ(set->master, 1);
  EXPECT_EQ(set->master_epoch, 1);
  EXPECT_EQ(set->sync_state_set, (std::set<ReplicaId>{1}));
  EXPECT_EQ(set->sync_state_set_epoch, 1);

  ASSERT_EQ(info.apply(AlterSyncStateSetEvent{"broker-a", 1, 1, 1, {1, 2, 3}}), Applied::changed);
  EXPECT_EQ(set->sync_state_set, (std::set<ReplicaId>{1, 2, 3}));
  EXPECT_EQ(set->sync_state_set_epoch, 2);

  ASSERT_EQ(info.apply(ElectMasterEvent{"broker-a", 3, 1}), Applied::changed);
  EXPECT_EQ(set->master, 3);
  EXPECT_EQ(set->master_epoch, 2);
  EXPECT_EQ(set->sync_state_set, (std::set<ReplicaId>{3}));
  EXPECT_EQ(set->sync_state_set_epoch, 3);
}

TEST(ReplicasInfo, TwoElectionsDecidedOnTheSameEpochTakeEffectOnce) {
  ReplicasInfo info = group_of_three();
  ASSERT_EQ(info.apply(ElectMasterEvent{"broker-a", 1, 0}), Applied::changed);
  EXPECT_EQ(info.apply(ElectMasterEvent{"broker-a", 2, 1}), Applied::changed);
  EXPECT_EQ(info.apply(ElectMasterEvent{"broker-a", 3, 1}), Applied::fenced);
  EXPECT_EQ(info.find("broker-a")->master, 2);
  EXPECT_EQ(info.find("broker-a")->master_epoch, 2);
}

TEST(ReplicasInfo, ElectingNobodyClearsTheMasterKeepsTheSetAndStillGrowsTheEpoch) {
  ReplicasInfo info = group_of_three();
  ASSERT_EQ(info.apply(ElectMasterEvent{"broker-a", 1, 0}), Applied::changed);
  ASSERT_EQ(info.apply(ElectMasterEvent{"broker-a", std::nullopt, 1}), Applied::changed);
  const BrokerSet* set = info.find("broker-a");
  EXPECT_FALSE(set->master.has_value());
  EXPECT_EQ(set->master_epoch, 2);
  EXPECT_EQ(set->sync_state_set, (std::set<ReplicaId>{1}));
  EXPECT_EQ(set->sync_state_set_epoch, 1);
}

TEST(ReplicasInfo, AlterIsFencedByAStaleMasterOrEitherStaleEpoch) {
  ReplicasInfo info = group_of_three();
  ASSERT_EQ(info.apply(ElectMasterEvent{"broker-a", 1, 0}), Applied::changed);
  EXPECT_EQ(info.apply(AlterSyncStateSetEvent{"broker-a", 2, 1, 1, {1, 2}}), Applied::fenced);
  EXPECT_EQ(info.apply(AlterSyncStateSetEvent{"broker-a", 1, 0, 1, {1, 2}}), Applied::fenced);
  EXPECT_EQ(info.apply(AlterSyncStateSetEvent{"broker-a", 1, 1, 0, {1, 2}}), Applied::fenced);
  EXPECT_EQ(info.apply(AlterSyncStateSetEvent{"broker-a", 1, 1, 1, {2}}), Applied::fenced);
  EXPECT_EQ(info.apply(AlterSyncStateSetEvent{"broker-a", 1, 1, 1, {1, 7}}), Applied::fenced);
  EXPECT_EQ(info.find("broker-a")->sync_state_set, (std::set<ReplicaId>{1}));
  EXPECT_EQ(info.find("broker-a")->sync_state_set_epoch, 1);
}

TEST(ReplicasInfo, CleaningIdsRemovesThemEverywhereAndTheLastOneTheGroup) {
  ReplicasInfo info = group_of_three();
  ASSERT_EQ(info.apply(ElectMasterEvent{"broker-a", 1, 0}), Applied::changed);
  ASSERT_EQ(info.apply(CleanBrokerDataEvent{"broker-a", {1, 2}}), Applied::changed);
  const BrokerSet* set = info.find("broker-a");
  ASSERT_NE(set, nullptr);
  EXPECT_FALSE(set->master.has_value());
  EXPECT_TRUE(set->sync_state_set.empty());
  EXPECT_EQ(set->replicas.size(), 1u);
  ASSERT_EQ(info.apply(CleanBrokerDataEvent{"broker-a", {3}}), Applied::changed);
  EXPECT_EQ(info.find("broker-a"), nullptr);
  EXPECT_EQ(info.apply(CleanBrokerDataEvent{"broker-a", {}}), Applied::fenced);
}

TEST(ReplicasInfo, AddressUpdatesOnlyForAKnownReplica) {
  ReplicasInfo info = group_of_three();
  EXPECT_EQ(info.apply(UpdateReplicaAddressEvent{"broker-a", 2, "10.0.0.22:10911"}), Applied::changed);
  EXPECT_EQ(info.find("broker-a")->address_of(2), "10.0.0.22:10911");
  EXPECT_EQ(info.apply(UpdateReplicaAddressEvent{"broker-a", 9, "x:1"}), Applied::fenced);
  EXPECT_EQ(info.apply(UpdateReplicaAddressEvent{"broker-b", 1, "x:1"}), Applied::fenced);
}

TEST(EventCodec, EveryKindReadsBackExactly) {
  const std::vector<Event> events = {
      Event{apply_id(1, "10.0.0.1:10911")},
      Event{ElectMasterEvent{"broker-a", 2, 7}},
      Event{ElectMasterEvent{"broker-a", std::nullopt, 8}},
      Event{AlterSyncStateSetEvent{"broker-a", 2, 9, 4, {1, 2, 3}}},
      Event{CleanBrokerDataEvent{"broker-a", {}}},
      Event{CleanBrokerDataEvent{"broker-a", {2, 3}}},
      Event{UpdateReplicaAddressEvent{"broker-a", 3, "10.0.0.3:10921"}},
  };
  for (const Event& e : events) {
    auto bytes = encode_event(e);
    auto back = decode_event(bytes);
    ASSERT_TRUE(back.ok()) << describe(e) << ": " << back.error().to_string();
    EXPECT_EQ(*back, e) << describe(e);
  }
}

TEST(EventCodec, EveryTruncationAndAnExtraByteAndAnUnknownKindAreRefused) {
  auto bytes = encode_event(Event{AlterSyncStateSetEvent{"broker-a", 2, 9, 4, {1, 2, 3}}});
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_FALSE(decode_event(Bytes(bytes.data(), n)).ok()) << "prefix of " << n << " bytes";
  }
  auto longer = bytes;
  longer.push_back(0);
  EXPECT_FALSE(decode_event(longer).ok());
  auto unknown = bytes;
  unknown[1] = 99;
  auto r = decode_event(unknown);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().detail.find("unknown event kind 99"), std::string::npos) << r.error().detail;
  auto version = bytes;
  version[0] = 2;
  EXPECT_FALSE(decode_event(version).ok());
}

TEST(ReplicasInfoSnapshot, TheWholeStateReadsBackAndDamageIsRefused) {
  ReplicasInfo info = group_of_three();
  ASSERT_EQ(info.apply(ElectMasterEvent{"broker-a", 2, 0}), Applied::changed);
  ASSERT_EQ(info.apply(AlterSyncStateSetEvent{"broker-a", 2, 1, 1, {2, 3}}), Applied::changed);
  ASSERT_EQ(info.apply(ApplyReplicaIdEvent{"DefaultCluster", "broker-b", 1, "10.0.1.1:10911", "10.0.1.1:10911;5"}),
            Applied::changed);
  auto bytes = info.encode();
  auto back = ReplicasInfo::decode(bytes);
  ASSERT_TRUE(back.ok()) << back.error().to_string();
  EXPECT_EQ(*back, info);
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    EXPECT_FALSE(ReplicasInfo::decode(Bytes(bytes.data(), n)).ok()) << "prefix of " << n << " bytes";
  }
}

}  // namespace
}  // namespace ferry::controller
