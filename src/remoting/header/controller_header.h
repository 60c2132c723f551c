// RocketMQ 5 controller headers (RIP-44): BROKER_HEARTBEAT (904) and CONTROLLER_* (1001-1013).
// Field names are RocketMQ's Java field names (a boolean keeps its "is" prefix: isLeader).
//
// Each struct names its extFields once, in fields() (remoting/header/field_codec.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "remoting/ext_fields.h"
#include "remoting/header/field_codec.h"
#include "runtime/result.h"

namespace ferry::remoting {

// Shared by the typed headers below: decode/encode through fields().
#define FERRY_HEADER_CODEC(H)                                                              \
  static Result<H> from_fields(const ExtFields& f) { return fields().decode(f); }          \
  ExtFields to_fields() const { return fields().encode(*this); }                           \
  bool operator==(const H&) const = default;

// 904, broker -> every controller, oneway.
struct BrokerHeartbeatRequestHeader {
  std::string cluster_name;
  std::string broker_addr;
  std::string broker_name;
  std::optional<std::int64_t> broker_id;
  std::optional<std::int32_t> epoch;
  std::optional<std::int64_t> max_offset;
  std::optional<std::int64_t> confirm_offset;
  std::optional<std::int64_t> heartbeat_timeout_mills;
  std::optional<std::int32_t> election_priority;

  static constexpr auto fields() {
    using H = BrokerHeartbeatRequestHeader;
    return header_table("BrokerHeartbeatRequestHeader", required("clusterName", &H::cluster_name),
                        required("brokerAddr", &H::broker_addr), required("brokerName", &H::broker_name),
                        optional("brokerId", &H::broker_id), optional("epoch", &H::epoch),
                        optional("maxOffset", &H::max_offset), optional("confirmOffset", &H::confirm_offset),
                        optional("heartbeatTimeoutMills", &H::heartbeat_timeout_mills),
                        optional("electionPriority", &H::election_priority));
  }
  FERRY_HEADER_CODEC(BrokerHeartbeatRequestHeader)
};

// 1001, the master -> the controller leader; body: SyncStateSet (the new set, the current epoch).
struct AlterSyncStateSetRequestHeader {
  std::string broker_name;
  std::int64_t master_broker_id = 0;
  std::int32_t master_epoch = 0;
  std::optional<std::int64_t> invoke_time;

  static constexpr auto fields() {
    using H = AlterSyncStateSetRequestHeader;
    return header_table("AlterSyncStateSetRequestHeader", required("brokerName", &H::broker_name),
                        required("masterBrokerId", &H::master_broker_id),
                        required("masterEpoch", &H::master_epoch), optional("invokeTime", &H::invoke_time));
  }
  FERRY_HEADER_CODEC(AlterSyncStateSetRequestHeader)
};

struct AlterSyncStateSetResponseHeader {
  std::int32_t new_sync_state_set_epoch = 0;

  static constexpr auto fields() {
    using H = AlterSyncStateSetResponseHeader;
    return header_table("AlterSyncStateSetResponseHeader",
                        required("newSyncStateSetEpoch", &H::new_sync_state_set_epoch));
  }
  FERRY_HEADER_CODEC(AlterSyncStateSetResponseHeader)
};

// 1002: a broker electing itself (clusterName, brokerName, brokerId), the controller (brokerName
// only: brokerId -1), an operator (designateElect=true).
struct ElectMasterRequestHeader {
  std::string cluster_name;
  std::string broker_name;
  std::int64_t broker_id = -1;
  bool designate_elect = false;
  std::optional<std::int64_t> invoke_time;

  static constexpr auto fields() {
    using H = ElectMasterRequestHeader;
    return header_table("ElectMasterRequestHeader", optional("clusterName", &H::cluster_name),
                        required("brokerName", &H::broker_name), optional("brokerId", &H::broker_id),
                        optional("designateElect", &H::designate_elect),
                        optional("invokeTime", &H::invoke_time));
  }
  FERRY_HEADER_CODEC(ElectMasterRequestHeader)
};

// The reply of 1002 and the master fields of 1003 / 1004 (absent when there is no master).
struct ElectMasterResponseHeader {
  std::optional<std::int64_t> master_broker_id;
  std::optional<std::string> master_address;
  std::optional<std::int32_t> master_epoch;
  std::optional<std::int32_t> sync_state_set_epoch;

  static constexpr auto fields() {
    using H = ElectMasterResponseHeader;
    return header_table("ElectMasterResponseHeader", optional("masterBrokerId", &H::master_broker_id),
                        optional("masterAddress", &H::master_address),
                        optional("masterEpoch", &H::master_epoch),
                        optional("syncStateSetEpoch", &H::sync_state_set_epoch));
  }
  FERRY_HEADER_CODEC(ElectMasterResponseHeader)
};

// 1003, a broker -> the leader, after it has an id.
struct RegisterBrokerToControllerRequestHeader {
  std::string cluster_name;
  std::string broker_name;
  std::int64_t broker_id = 0;
  std::string broker_address;
  std::optional<std::int64_t> invoke_time;

  static constexpr auto fields() {
    using H = RegisterBrokerToControllerRequestHeader;
    return header_table("RegisterBrokerToControllerRequestHeader", required("clusterName", &H::cluster_name),
                        required("brokerName", &H::broker_name), required("brokerId", &H::broker_id),
                        required("brokerAddress", &H::broker_address), optional("invokeTime", &H::invoke_time));
  }
  FERRY_HEADER_CODEC(RegisterBrokerToControllerRequestHeader)
};

// 1004, 1012: a group by name (1012 also names the cluster).
struct BrokerNameRequestHeader {
  std::optional<std::string> cluster_name;
  std::string broker_name;

  static constexpr auto fields() {
    using H = BrokerNameRequestHeader;
    return header_table("GetReplicaInfoRequestHeader", optional("clusterName", &H::cluster_name),
                        required("brokerName", &H::broker_name));
  }
  FERRY_HEADER_CODEC(BrokerNameRequestHeader)
};

// 1005's reply.
struct GetMetaDataResponseHeader {
  std::string group;
  std::string controller_leader_id;
  std::string controller_leader_address;
  bool is_leader = false;
  std::string peers;  // "id:address;" repeated

  static constexpr auto fields() {
    using H = GetMetaDataResponseHeader;
    return header_table("GetMetaDataResponseHeader", optional("group", &H::group),
                        optional("controllerLeaderId", &H::controller_leader_id),
                        optional("controllerLeaderAddress", &H::controller_leader_address),
                        required("isLeader", &H::is_leader), optional("peers", &H::peers));
  }
  FERRY_HEADER_CODEC(GetMetaDataResponseHeader)
};

// 1008, the controller -> each alive broker of the group, oneway; body: SyncStateSet.
struct NotifyBrokerRoleChangedRequestHeader {
  std::string master_address;
  std::int32_t master_epoch = 0;
  std::int32_t sync_state_set_epoch = 0;
  std::int64_t master_broker_id = 0;

  static constexpr auto fields() {
    using H = NotifyBrokerRoleChangedRequestHeader;
    return header_table("NotifyBrokerRoleChangedRequestHeader", optional("masterAddress", &H::master_address),
                        required("masterEpoch", &H::master_epoch),
                        required("syncStateSetEpoch", &H::sync_state_set_epoch),
                        required("masterBrokerId", &H::master_broker_id));
  }
  FERRY_HEADER_CODEC(NotifyBrokerRoleChangedRequestHeader)
};

// 1011, an operator -> the leader.
struct CleanControllerBrokerDataRequestHeader {
  std::optional<std::string> cluster_name;
  std::string broker_name;
  std::optional<std::string> broker_controller_ids_to_clean;  // "1;2;3"
  bool is_clean_living_broker = false;
  std::optional<std::int64_t> invoke_time;

  static constexpr auto fields() {
    using H = CleanControllerBrokerDataRequestHeader;
    return header_table("CleanControllerBrokerDataRequestHeader", optional("clusterName", &H::cluster_name),
                        required("brokerName", &H::broker_name),
                        optional("brokerControllerIdsToClean", &H::broker_controller_ids_to_clean),
                        optional("isCleanLivingBroker", &H::is_clean_living_broker),
                        optional("invokeTime", &H::invoke_time));
  }
  FERRY_HEADER_CODEC(CleanControllerBrokerDataRequestHeader)
};

// 1012's reply.
struct GetNextBrokerIdResponseHeader {
  std::string cluster_name;
  std::string broker_name;
  std::int64_t next_broker_id = 0;

  static constexpr auto fields() {
    using H = GetNextBrokerIdResponseHeader;
    return header_table("GetNextBrokerIdResponseHeader", optional("clusterName", &H::cluster_name),
                        optional("brokerName", &H::broker_name), required("nextBrokerId", &H::next_broker_id));
  }
  FERRY_HEADER_CODEC(GetNextBrokerIdResponseHeader)
};

// 1013, a broker -> the leader.
struct ApplyBrokerIdRequestHeader {
  std::string cluster_name;
  std::string broker_name;
  std::int64_t applied_broker_id = 0;
  std::string register_check_code;  // "<brokerAddr>;<epochMillis>"

  static constexpr auto fields() {
    using H = ApplyBrokerIdRequestHeader;
    return header_table("ApplyBrokerIdRequestHeader", required("clusterName", &H::cluster_name),
                        required("brokerName", &H::broker_name),
                        required("appliedBrokerId", &H::applied_broker_id),
                        required("registerCheckCode", &H::register_check_code));
  }
  FERRY_HEADER_CODEC(ApplyBrokerIdRequestHeader)
};

#undef FERRY_HEADER_CODEC

}  // namespace ferry::remoting
