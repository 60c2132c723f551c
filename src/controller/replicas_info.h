// ReplicasInfo: the controller's replicated state (RocketMQ 5's ReplicasInfoManager), one entry
// per broker group ("broker set", by brokerName): the replicas the controller gave ids to, the
// master, masterEpoch, the SyncStateSet and syncStateSetEpoch.
//
// It changes only by apply(Event): every controller applies the same committed events in the same
// order (the Raft log, raft_node.h), so every controller holds the same ReplicasInfo. Decisions
// (who becomes master, whether a SyncStateSet change is allowed) are made on the leader against
// this state (decisions.h) and travel as events; an event carries the epochs its decision saw,
// and apply() refuses it when they no longer hold (a "fenced" event changes nothing), so two
// decisions raced through the log can never both take effect.
//
// Epochs: masterEpoch grows by one on every ElectMaster event, also one that finds no master (so
// an old master is fenced even while its group has none); syncStateSetEpoch grows on every
// change of the set, including the one an election makes. Both only grow.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "runtime/bytes.h"
#include "runtime/result.h"

namespace ferry::controller {

// A replica's id inside its group, given by the controller (RocketMQ's brokerControllerId):
// 1, 2, ... in the order replicas first applied. Distinct from the NameServer brokerId
// (0 = master), which a broker derives from its role.
using ReplicaId = std::int64_t;
inline constexpr ReplicaId kFirstReplicaId = 1;
inline constexpr ReplicaId kNoReplica = -1;

using Epoch = std::int32_t;

struct Replica {
  std::string address;              // "ip:port" the broker serves on
  std::string register_check_code;  // "<address>;<millis>" of the APPLY_BROKER_ID that took the id
  bool operator==(const Replica&) const = default;
};

struct BrokerSet {
  std::string cluster;
  std::string name;
  ReplicaId next_replica_id = kFirstReplicaId;
  std::map<ReplicaId, Replica> replicas;
  std::optional<ReplicaId> master;  // none until the first election, or after one found nobody
  Epoch master_epoch = 0;
  Epoch sync_state_set_epoch = 0;
  std::set<ReplicaId> sync_state_set;
  bool operator==(const BrokerSet&) const = default;

  // The address of `id`, or empty when the group has no such replica.
  std::string address_of(ReplicaId id) const;
};

// ---- Events (the log's commands) ------------------------------------------------------------

// A replica takes an id (CONTROLLER_APPLY_BROKER_ID). The first one creates the group. Fenced
// when the id is taken by someone with another check code.
struct ApplyReplicaIdEvent {
  std::string cluster;
  std::string name;
  ReplicaId id = kNoReplica;
  std::string address;
  std::string register_check_code;
  bool operator==(const ApplyReplicaIdEvent&) const = default;
};

// A new master, or none (`master` empty). Fenced unless the group's masterEpoch is still
// `seen_master_epoch`. Applied: master = `master`, masterEpoch + 1; with a master the
// SyncStateSet becomes {master} and its epoch + 1.
struct ElectMasterEvent {
  std::string name;
  std::optional<ReplicaId> master;
  Epoch seen_master_epoch = 0;
  bool operator==(const ElectMasterEvent&) const = default;
};

// The master changes its SyncStateSet. Fenced unless `master` is still the master and both
// epochs still hold. Applied: the set, syncStateSetEpoch + 1.
struct AlterSyncStateSetEvent {
  std::string name;
  ReplicaId master = kNoReplica;
  Epoch seen_master_epoch = 0;
  Epoch seen_sync_state_set_epoch = 0;
  std::set<ReplicaId> sync_state_set;
  bool operator==(const AlterSyncStateSetEvent&) const = default;
};

// An operator removes replicas (`ids`) or the whole group (`ids` empty) (CLEAN_BROKER_DATA).
struct CleanBrokerDataEvent {
  std::string name;
  std::vector<ReplicaId> ids;
  bool operator==(const CleanBrokerDataEvent&) const = default;
};

// A registered replica now serves on another address (CONTROLLER_REGISTER_BROKER).
struct UpdateReplicaAddressEvent {
  std::string name;
  ReplicaId id = kNoReplica;
  std::string address;
  bool operator==(const UpdateReplicaAddressEvent&) const = default;
};

using Event = std::variant<ApplyReplicaIdEvent, ElectMasterEvent, AlterSyncStateSetEvent,
                           CleanBrokerDataEvent, UpdateReplicaAddressEvent>;

// The log format of an event (docs/controller.md, "Log entries"): u8 format version (1), u8 kind,
// then the kind's fields; strings are u16 length + bytes, ids i64, epochs i32, sets u16 count +
// ids. decode_event() refuses trailing bytes, unknown versions and kinds, and counts over bounds.
std::vector<std::uint8_t> encode_event(const Event& e);
Result<Event> decode_event(Bytes data);
// "ElectMaster broker-a master=2 seenMasterEpoch=3" (logs).
std::string describe(const Event& e);

// ---- The state --------------------------------------------------------------------------

// What apply() did with an event.
enum class Applied : std::uint8_t { changed, fenced };

class ReplicasInfo {
 public:
  // Applies one committed event. Deterministic: the same events in the same order give the same
  // state on every controller. A fenced event (its preconditions no longer hold) changes nothing.
  Applied apply(const Event& e);

  // The group named `name`, or null.
  const BrokerSet* find(const std::string& name) const;
  const std::map<std::string, BrokerSet>& sets() const { return sets_; }
  // Events applied (changed or fenced); the same on every controller at the same log position.
  std::uint64_t applied_count() const { return applied_; }

  // The whole state as bytes (a snapshot), and back; decode refuses anything malformed.
  std::vector<std::uint8_t> encode() const;
  static Result<ReplicasInfo> decode(Bytes data);
  bool operator==(const ReplicasInfo&) const = default;

 private:
  Applied apply_one(const ApplyReplicaIdEvent& e);
  Applied apply_one(const ElectMasterEvent& e);
  Applied apply_one(const AlterSyncStateSetEvent& e);
  Applied apply_one(const CleanBrokerDataEvent& e);
  Applied apply_one(const UpdateReplicaAddressEvent& e);

  std::map<std::string, BrokerSet> sets_;
  std::uint64_t applied_ = 0;
};

}  // namespace ferry::controller
