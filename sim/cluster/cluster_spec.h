// ClusterSpec: a whole simulated RocketMQ deployment described as plain data — NameServers,
// broker groups (flush and replication modes, store sizes, disk capacity), topics. Cluster
// (cluster.h) builds it in a World; tests, the scenario runner and the property tests all start
// from one of these.
//
// Every field has a default that makes a small, fast cluster: one NameServer, one ASYNC_FLUSH
// master "broker-a", small CommitLog/ConsumeQueue/index files. check() refuses what cannot be
// built, naming the field.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "broker/broker_config.h"
#include "controller/controller_config.h"
#include "namesrv/namesrv_config.h"
#include "remoting/body/topic_config.h"
#include "runtime/result.h"
#include "store/store_config.h"

namespace ferry::sim::cluster {

// Store geometry for simulation: 1 MiB CommitLog files, 1000-unit ConsumeQueue files, a small
// index, 64 KiB messages — rolls and cleanups happen after hundreds of messages, not millions.
store::StoreConfig small_store();

struct BrokerGroupSpec {
  std::string name = "broker-a";
  std::string cluster = "DefaultCluster";
  // Slaves of this group (brokerId 1..n, role SLAVE, nodes "{name}-s{id}").
  std::size_t slaves = 0;
  store::FlushMode flush = store::FlushMode::async_flush;
  // The slaves' flush mode; unset = the master's.
  std::optional<store::FlushMode> slave_flush;
  broker::BrokerRole role = broker::BrokerRole::async_master;  // of the master
  store::StoreConfig store = small_store();
  // Disk capacity of each node of the group; 0 keeps the world's DiskOptions::capacity_bytes.
  std::uint64_t disk_capacity_bytes = 0;
  // Controller mode (RocketMQ 5; docs/controller.md): the spec's controllers choose the group's
  // master among its brokers (the node "{name}" and its "{name}-s{k}" alike); `role` and the
  // brokerIds then only say how the group starts. Needs ClusterSpec::controllers.
  bool controller_mode = false;
  // Every other broker setting. broker_name, broker_cluster_name, broker_id, namesrv_addr,
  // flush_disk_type, broker_role and store are overwritten from the fields above.
  broker::BrokerConfig config;
};

struct TopicSpec {
  std::string name;
  std::int32_t queues = 4;  // read and write queues on every broker group
  bool ordered = false;     // an ordered topic (the producer selects by key hash)
  std::int32_t perm = 6;
};

// What an admin client sends to create `t` on a master (UPDATE_AND_CREATE_TOPIC): its name, perm
// and order, `queues` read and write queues (t.queues unless given: an update_topic's count).
remoting::body::TopicConfig topic_config(const TopicSpec& t, std::optional<std::int32_t> queues = std::nullopt);
struct ClusterSpec;
// The topic named `name` of `spec`; nullptr when it has none.
const TopicSpec* find_topic(const ClusterSpec& spec, const std::string& name);

struct ClusterSpec {
  std::size_t namesrvs = 1;
  namesrv::NameServerConfig namesrv_config;
  std::vector<BrokerGroupSpec> brokers = {BrokerGroupSpec{}};
  // Controllers (nodes "controller-{i}", a Raft quorum on port kControllerPort) for the groups in
  // controller mode; `controller_config` is their base (peers, self and store path are set).
  std::size_t controllers = 0;
  controller::ControllerConfig controller_config;
  std::vector<TopicSpec> topics;

  // Errors (invalid_argument) name the field: no NameServer, topics without broker groups (a
  // NameServer-only cluster is fine: its tests play the brokers), duplicate group or topic names,
  // invalid topic names or queue counts, more than 4 slaves a group, a controller-mode group
  // without controllers.
  Status check() const;
};

}  // namespace ferry::sim::cluster
