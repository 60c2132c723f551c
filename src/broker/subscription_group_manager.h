// SubscriptionGroupManager: consumer groups' broker-side settings (RocketMQ's
// SubscriptionGroupManager), ordered by name, with a DataVersion bumped on every change.
//
// Persisted in `{config_dir}/subscriptionGroup.json` through a JsonStateFile:
//   {"dataVersion":{"counter":N,"timestamp":ms},
//    "subscriptionGroupTable":{"G":{...SubscriptionGroupConfig...}}}
// Every change (put, remove, an auto-create) bumps the version and starts a background persist;
// a graceful stop persists once more. Persist failures are logged; memory stays authoritative.
//
// Auto-creation (autoCreateSubscriptionGroup, on by default): find_or_create() makes a group
// with the defaults the first time a heartbeat, pull or send-back names it. At most
// subscription_groups_max groups: beyond that find_or_create() returns nullptr (the caller
// answers SUBSCRIPTION_GROUP_NOT_EXIST naming the cap).
//
// Threading: the node's loop. Pointers returned by find() are valid until the next change.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "broker/broker_config.h"
#include "broker/json_state_file.h"
#include "broker/metadata_json.h"
#include "remoting/body/subscription_group_config.h"
#include "remoting/body/register_broker_body.h"
#include "runtime/log_limiter.h"

namespace ferry::broker {

// The config and its JSON are the protocol's (admin bodies carry it too).
using remoting::body::kRetryMaxTimesDefault;
using remoting::body::SubscriptionGroupConfig;

using SubscriptionGroupTable = NamedTable<SubscriptionGroupConfig>;

inline constexpr std::string_view kSubscriptionGroupFileName = "subscriptionGroup.json";

class SubscriptionGroupManager {
 public:
  SubscriptionGroupManager(Runtime& rt, const BrokerConfig& config);

  // Loads subscriptionGroup.json (falling back to the backup). Errors: corrupt naming the files.
  Status load();

  const SubscriptionGroupConfig* find(std::string_view group) const;
  // find(), or (auto-creation on, group name valid, under the cap) a new group with defaults.
  const SubscriptionGroupConfig* find_or_create(std::string_view group);
  // Creates or replaces (UPDATE_AND_CREATE_SUBSCRIPTIONGROUP). Counts as a change.
  void put(SubscriptionGroupConfig config);
  // False when the group did not exist.
  bool remove(std::string_view group);
  // A slave takes its master's table (SlaveSync, RocketMQ's syncSubscriptionGroupConfig):
  // `table` replaces every group and `version` becomes the data version as it is (not bumped).
  // Starts a background persist. Errors (busy, nothing changes): more than
  // config.subscription_groups_max groups.
  Status replace_all(SubscriptionGroupTable table, remoting::body::DataVersion version);

  const SubscriptionGroupTable& table() const { return state_.table; }
  const remoting::body::DataVersion& data_version() const { return state_.version; }

  // Writes the file now (after a write in progress). Success = durable.
  Task<Status> persist();

  static std::string encode(const SubscriptionGroupTable& table, const remoting::body::DataVersion& v);
  static Status decode(std::string_view text, SubscriptionGroupTable& table, remoting::body::DataVersion& v);

 private:
  void changed();

  Runtime& rt_;
  const BrokerConfig& config_;
  VersionedTable<SubscriptionGroupConfig> state_;
  JsonStateFile<VersionedTable<SubscriptionGroupConfig>> file_;  // after state_: refers to it
  LogLimiter cap_log_;  // groups not created for the cap (clients name new groups at will)
};

}  // namespace ferry::broker
