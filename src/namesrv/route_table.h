// RouteTable: the NameServer's routing state (RocketMQ's RouteInfoManager), in memory only.
//
//   brokerAddrTable   broker name → {cluster, brokerId → address}
//   clusterAddrTable  cluster → broker names
//   topicQueueTable   topic → broker name → queue data
//   brokerLiveTable   broker address → {last heard, dataVersion, channel, HA address}
//   filterServerTable broker address → filter servers
//
// Every table is an ordered map, so every reply built from them (route, cluster info, topic
// lists) lists its entries in a fixed order (by name) whatever the order of registrations.
//
// Rules kept from RocketMQ 4.9:
//  * A registration always refreshes the broker's live entry (time, dataVersion, channel, HA
//    address) and its cluster and address entries.
//  * Routes (topicQueueTable) change only when a master (brokerId 0) registers, and then only on
//    its first registration (its name or id was not known) or when its dataVersion differs from
//    the one in its live entry. Topics the broker no longer reports are not removed (they go with
//    the broker, or by DELETE_TOPIC_IN_NAMESRV).
//  * A slave's registration answers with its live master's address and HA address.
//  * An address re-registering under another brokerId (slave promoted to master) loses its old
//    id entry: one address has one id.
//  * Dropping an address (connection closed, expired) removes it everywhere; a broker name left
//    without addresses is removed with its queue data, and a cluster left empty is removed.
//  * Unregistering removes the live entry and the id's address; the broker name (with its
//    queue data, from every cluster) goes only when it has no address left. (RocketMQ removes
//    the name from the named cluster only; a name without addresses listed elsewhere helps
//    nobody.)
//
// Bounds (RouteLimits): a registration that would grow a table past its limit is refused whole
// (Errc::busy naming the table) and changes nothing.
//
// Single-threaded: call on the NameServer's loop only. Logs go to the logger given at
// construction (info: brokers and topics appearing and disappearing).
#pragma once

#include <spdlog/logger.h>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "namesrv/namesrv_config.h"
#include "remoting/body/broker_data.h"
#include "remoting/body/broker_live_table.h"
#include "remoting/body/cluster_info.h"
#include "remoting/body/register_broker_body.h"
#include "remoting/body/topic_list.h"
#include "remoting/body/topic_route_data.h"
#include "runtime/result.h"
#include "runtime/time.h"

namespace ferry::namesrv {

// The connection a registration arrived on (remoting::Channel::id()); kNoChannel when none.
using ChannelId = std::uint64_t;
inline constexpr ChannelId kNoChannel = 0;

// RocketMQ's MixAll.MASTER_ID.
inline constexpr std::int64_t kMasterId = 0;

struct BrokerRegistration {
  std::string cluster_name;
  std::string broker_name;
  std::string broker_addr;  // "ip:port"
  std::int64_t broker_id = kMasterId;
  std::string ha_server_addr;
  remoting::body::TopicConfigSerializeWrapper topic_config;
  std::vector<std::string> filter_server_list;  // empty: the broker has none (entry removed)
  ChannelId channel = kNoChannel;
};

struct [[nodiscard]] RegisterOutcome {
  // Set for a slave whose master (brokerId 0 of its name) is live.
  std::optional<std::string> master_addr;
  std::optional<std::string> ha_server_addr;  // that master's HA address
  bool routes_updated = false;  // the registration's topic configs were applied
  // Set when the registration was ignored: another live address holds its id with a larger
  // state version (RocketMQ 5: an old master's registration sent before it learned of the new
  // epoch). Nothing of it was applied and its address left the live table.
  std::optional<std::string> ignored;
};

struct BrokerLiveInfo {
  MonoTime last_update{};
  remoting::body::DataVersion data_version;
  ChannelId channel = kNoChannel;
  std::string ha_server_addr;
};

// A broker address dropped by the liveness scan, with the connection it registered on.
struct ExpiredBroker {
  std::string broker_addr;
  ChannelId channel = kNoChannel;
};

class RouteTable {
 public:
  RouteTable(RouteLimits limits, spdlog::logger& log);

  // REGISTER_BROKER. `now` stamps the live entry. Errors: Errc::busy when a table is full,
  // Errc::invalid_argument for a filter server list over its bound; nothing changed then.
  // A registration for an id that another live address holds with a larger state version
  // (DataVersion::state_version, the controller's master epoch) is ignored (RegisterOutcome::ignored).
  Result<RegisterOutcome> register_broker(BrokerRegistration reg, MonoTime now);

  // UNREGISTER_BROKER. Unknown names and addresses are ignored.
  void unregister_broker(const std::string& cluster_name, const std::string& broker_addr,
                         const std::string& broker_name, std::int64_t broker_id);

  // GET_ROUTEINFO_BY_TOPIC: queue data and broker data ordered by broker name, plus the filter
  // servers of those brokers. nullopt when the topic is unknown or none of its brokers is.
  std::optional<remoting::body::TopicRouteData> route_of(const std::string& topic) const;

  // GET_BROKER_CLUSTER_INFO: both tables, broker names sorted within each cluster.
  remoting::body::ClusterInfo cluster_info() const;
  // The live brokers with the age of their last registration at `now` (FERRY_GET_BROKER_LIVE_TABLE).
  remoting::body::BrokerLiveTable live_table(MonoTime now) const;

  // GET_ALL_TOPIC_LIST_FROM_NAMESERVER: every topic, sorted.
  remoting::body::TopicList all_topics() const;
  // GET_TOPICS_BY_CLUSTER: topics with queue data on a broker of `cluster`, sorted (empty for an
  // unknown cluster).
  remoting::body::TopicList topics_of_cluster(const std::string& cluster) const;

  // DELETE_TOPIC_IN_NAMESRV: removes the topic's queue data (only that of `cluster`'s brokers
  // when given). Returns whether anything was removed.
  bool delete_topic(const std::string& topic, const std::optional<std::string>& cluster);

  // WIPE_WRITE_PERM_OF_BROKER / ADD_WRITE_PERM_OF_BROKER (RocketMQ's operateWritePermOfBroker):
  // every topic's queue data of `broker_name` loses the write bit (wipe) or becomes read+write
  // (add; as RocketMQ, other bits are dropped). Returns how many topics it touched. The change
  // lasts until the broker's topic config changes (its next registration with a new dataVersion
  // rewrites its queue data), as in RocketMQ.
  enum class WritePerm { wipe, add };
  std::int32_t operate_write_perm(const std::string& broker_name, WritePerm op);

  // The liveness scan: drops every broker whose last registration is older than `expiry` at
  // `now` (last_update + expiry < now), like a closed connection, and returns them in address
  // order (the caller closes their connections).
  std::vector<ExpiredBroker> drop_expired(MonoTime now, Duration expiry);

  // A connection closed: drops every broker address whose live entry was registered over
  // `channel`. Returns the addresses dropped, in order. kNoChannel drops nothing.
  std::vector<std::string> drop_channel(ChannelId channel);

  // ---- inspection --------------------------------------------------------------------------
  const std::map<std::string, BrokerLiveInfo>& live_brokers() const { return live_; }
  const std::map<std::string, remoting::body::BrokerData>& brokers() const { return brokers_; }
  std::size_t topic_count() const { return topics_.size(); }
  std::size_t cluster_count() const { return clusters_.size(); }

 private:
  using QueueDatas = std::map<std::string, remoting::body::QueueData>;  // by broker name

  Status admit(const BrokerRegistration& reg) const;
  bool applies_topics(const BrokerRegistration& reg) const;
  // Why `reg` is stale (see register_broker), or nullopt.
  std::optional<std::string> superseded(const BrokerRegistration& reg) const;
  void apply_topics(const std::string& broker_name,
                    const remoting::body::TopicConfigSerializeWrapper& wrapper);
  void drop_broker_addr(const std::string& addr);
  void drop_broker_name(const std::string& name);

  RouteLimits limits_;
  spdlog::logger& log_;
  std::map<std::string, remoting::body::BrokerData> brokers_;  // brokerAddrTable
  std::map<std::string, std::set<std::string>> clusters_;      // clusterAddrTable
  std::map<std::string, QueueDatas> topics_;                   // topicQueueTable
  std::map<std::string, BrokerLiveInfo> live_;                 // brokerLiveTable
  std::map<std::string, std::vector<std::string>> filter_servers_;  // filterServerTable
};

}  // namespace ferry::namesrv
