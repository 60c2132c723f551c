// ClientConfig: the knobs of one client instance (RocketMQ's ClientConfig), with RocketMQ 4.9's
// defaults. Units are in the names. Plain data; ClientInstance checks it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "remoting/acl/signature.h"
#include "remoting/rpc/rpc_options.h"
#include "runtime/time.h"

namespace ferry::client {

struct ClientConfig {
  // NameServers ("ip:port" each; RocketMQ's namesrvAddr split on ';'). At least one.
  std::vector<std::string> namesrv_addrs;
  // The address put in the client id; empty = the runtime's network host.
  std::string client_ip;
  // instanceName; the client id is "client_ip@instance_name[@unit_name]". Two instances in one
  // process must use different names (RocketMQ replaces "DEFAULT" with the pid; Ferry never reads
  // the pid, so the owner picks).
  std::string instance_name = "DEFAULT";
  std::optional<std::string> unit_name;

  // pollNameServerInterval: route refresh of every topic in use (first one 10 ms after start).
  Duration poll_name_server_interval = std::chrono::seconds(30);
  // heartbeatBrokerInterval: HEART_BEAT to every broker (first one 1 s after start).
  Duration heartbeat_broker_interval = std::chrono::seconds(30);
  // Consumers: rebalance every rebalance_interval (and at once on NOTIFY_CONSUMER_IDS_CHANGED);
  // persist consumer offsets every persist_consumer_offset_interval (the first one 10 s after
  // start), as RocketMQ's RebalanceService and persistConsumerOffsetInterval.
  Duration rebalance_interval = std::chrono::seconds(20);
  Duration persist_consumer_offset_interval = std::chrono::seconds(5);
  // mqClientApiTimeout: NameServer calls, heartbeats, unregistration, admin calls.
  Duration api_timeout = std::chrono::seconds(3);

  // What UNIQ_KEY ids are made of (unique_id.h): a pid-like id and a per-process hash. The owner
  // supplies them (production: the real pid and a random hash; simulation: per node).
  std::int32_t uniq_id_pid = 0;
  std::int32_t uniq_id_process_hash = 0;

  // accessKey / secretKey (RocketMQ's AclClientRPCHook): when set, every request this instance
  // sends (NameServers and brokers alike) is signed (remoting/acl/signature.h).
  remoting::acl::Credentials credentials;

  // The RPC layer's limits; requests go out with the binary header (RpcOptions::request_header,
  // RocketMQ's serialize type ROCKETMQ) unless the owner sets another form or nullopt.
  remoting::RpcOptions rpc = default_rpc_options();

  static remoting::RpcOptions default_rpc_options() {
    remoting::RpcOptions o;
    o.request_header = remoting::SerializeType::rocketmq;
    o.raw_ext_fields_replies = true;  // send replies are decoded straight from the bytes
    return o;
  }

  // Asserts that every knob is usable (a NameServer, positive intervals).
  void check() const;
};

}  // namespace ferry::client
