// NameServerConfig: what a NameServer listens on, how it judges broker liveness, and the bounds of
// its tables. Every table the NameServer keeps is bounded here; a request that would grow a table
// past its bound is refused with SYSTEM_ERROR (1) and a remark naming the table, and nothing
// changes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "remoting/rpc/rpc_options.h"
#include "runtime/time.h"

namespace ferry::namesrv {

// RocketMQ's NameServer port.
inline constexpr std::uint16_t kDefaultNamesrvPort = 9876;

struct RouteLimits {
  std::size_t clusters_max = 256;        // clusterAddrTable entries
  std::size_t broker_names_max = 1024;   // brokerAddrTable entries (broker groups)
  std::size_t broker_ids_per_name_max = 16;  // addresses of one broker group (master + slaves)
  std::size_t broker_addrs_max = 4096;   // brokerLiveTable entries (broker processes)
  std::size_t topics_max = 262'144;      // topicQueueTable entries
  std::size_t filter_servers_per_broker_max = 64;

  void check() const;
};

struct KvLimits {
  std::size_t entries_max = 65'536;  // (namespace, key) pairs over all namespaces
  std::size_t name_bytes_max = 255;       // a namespace or a key
  std::size_t value_bytes_max = 16'384;   // one value (RocketMQ's are route strings, tens of bytes)
  std::size_t total_bytes_max = 64 << 20; // namespaces, keys and values over all entries

  void check() const;
};

struct NameServerConfig {
  // listenAddress (Ferry's): the address the server binds; "0.0.0.0" (the default, RocketMQ's
  // behaviour) listens on every address of the node, "127.0.0.1" on loopback only.
  std::string listen_host = "0.0.0.0";
  // aclEnable / aclFilePath (Ferry's; RocketMQ 4.9's NameServer has no ACL): the write codes
  // (remoting/acl/access_check.h, namesrv_policy) need an admin account's signature from this
  // plain_acl.yml, relative to the FileSystem handed to NameServer::set_acl_files (the node's own
  // by default). A missing or bad file fails start().
  bool acl_enable = false;
  std::string acl_file_path = "plain_acl.yml";
  std::uint16_t listen_port = kDefaultNamesrvPort;
  // The liveness scan: first after scan_initial_delay, then every scan_interval; it drops a
  // broker not heard from for more than broker_expiry (RocketMQ: 5 s, 10 s, 120 s).
  Duration scan_initial_delay = std::chrono::seconds(5);
  Duration scan_interval = std::chrono::seconds(10);
  Duration broker_expiry = std::chrono::seconds(120);
  // RocketMQ's orderMessageEnable: route replies carry orderTopicConf from the KV namespace
  // ORDER_TOPIC_CONFIG.
  bool order_message_enable = false;
  RouteLimits route_limits;
  KvLimits kv_limits;
  remoting::RpcOptions rpc;

  // Asserts that every knob is usable (positive intervals, non-zero bounds).
  void check() const;
};

}  // namespace ferry::namesrv
