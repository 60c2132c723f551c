// RocketMQ 5 controller bodies (RIP-44):
//   SyncStateSet            {"syncStateSet":[1,2],"syncStateSetEpoch":3}            1001, 1003, 1004, 1008
//   ElectMasterResponseBody {"brokerMemberGroup":{"cluster":"c","brokerName":"b",
//                            "brokerAddrs":{"1":"ip:port"}},"syncStateSet":[1]}   1002's reply
//   BrokerReplicasInfo      {"replicasInfoTable":{"b":{"masterBrokerId":1,"masterAddress":"ip:port",
//                            "masterEpoch":2,"syncStateSetEpoch":3,
//                            "inSyncReplicas":[{"brokerName":"b","brokerId":1,
//                              "brokerAddress":"ip:port","alive":true}],"notInSyncReplicas":[]}}}  1006's reply
//   EpochEntryCache         {"brokerId":1,"brokerName":"b","clusterName":"c",
//                            "epochList":[{"endOffset":4096,"epoch":1,"startOffset":0},...],
//                            "maxOffset":8192}                                   1007's reply
//                            (the last entry's endOffset is Long.MAX_VALUE, as RocketMQ sends it)
// fastjson writes a Map<Long,String>'s keys unquoted ({1:"ip"}); Ferry writes standard JSON
// (quoted keys), which fastjson reads as well.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "runtime/bytes.h"
#include "runtime/result.h"

namespace ferry::remoting::body {

struct SyncStateSet {
  std::set<std::int64_t> sync_state_set;
  std::int32_t sync_state_set_epoch = 0;

  // Errors: Errc::corrupt for malformed JSON, Errc::invalid_argument naming the field.
  static Result<SyncStateSet> decode(Bytes body);
  std::vector<std::uint8_t> encode() const;
  bool operator==(const SyncStateSet&) const = default;
};

struct ElectMasterResponseBody {
  bool has_member_group = false;  // only when a new master was elected
  std::string cluster;
  std::string broker_name;
  std::map<std::int64_t, std::string> broker_addrs;
  std::set<std::int64_t> sync_state_set;

  std::vector<std::uint8_t> encode() const;
};

struct ReplicaIdentity {
  std::string broker_name;
  std::int64_t broker_id = 0;
  std::string broker_address;
  bool alive = false;
};

struct ReplicasInfo {
  std::int64_t master_broker_id = -1;
  std::string master_address;
  std::int32_t master_epoch = 0;
  std::int32_t sync_state_set_epoch = 0;
  std::vector<ReplicaIdentity> in_sync_replicas;
  std::vector<ReplicaIdentity> not_in_sync_replicas;
};

// CONTROLLER_GET_SYNC_STATE_DATA's request body: a JSON list of brokerNames, ["broker-a"].
// Errors: corrupt (malformed JSON), invalid_argument (not a list of strings).
Result<std::vector<std::string>> parse_name_list(Bytes body);
std::vector<std::uint8_t> write_name_list(const std::vector<std::string>& names);

struct EpochEntryCache {
  struct Entry {
    std::int32_t epoch = 0;
    std::int64_t start_offset = 0;
    std::int64_t end_offset = 0;
    bool operator==(const Entry&) const = default;
  };
  std::string cluster_name;
  std::string broker_name;
  std::int64_t broker_id = 0;
  std::vector<Entry> epoch_list;
  std::int64_t max_offset = 0;

  std::vector<std::uint8_t> encode() const;
  // Errors: Errc::corrupt for malformed JSON, Errc::invalid_argument naming the field.
  static Result<EpochEntryCache> decode(Bytes body);
};

struct BrokerReplicasInfo {
  std::map<std::string, ReplicasInfo> replicas_info_table;
  std::vector<std::uint8_t> encode() const;
  // Errors: Errc::corrupt for malformed JSON, Errc::invalid_argument naming the field.
  static Result<BrokerReplicasInfo> decode(Bytes body);
};

}  // namespace ferry::remoting::body
