// RequestProcessor: turns NameServer requests into replies (RocketMQ's DefaultRequestProcessor).
//
// Served codes (codes()): PUT/GET/DELETE_KV_CONFIG (100-102), REGISTER_BROKER (103),
// UNREGISTER_BROKER (104), GET_ROUTEINFO_BY_TOPIC (105), GET_BROKER_CLUSTER_INFO (106),
// GET_ALL_TOPIC_LIST_FROM_NAMESERVER (206), DELETE_TOPIC_IN_NAMESRV (216),
// GET_KVLIST_BY_NAMESPACE (219), GET_TOPICS_BY_CLUSTER (224), WIPE_WRITE_PERM_OF_BROKER (205)
// and ADD_WRITE_PERM_OF_BROKER (327) (reply header wipeTopicCount / addTopicCount;
// remoting/header/write_perm_header.h), UPDATE_NAMESRV_CONFIG (318) and GET_NAMESRV_CONFIG (319)
// (properties text bodies, remoting/body/properties_text.h). 318 changes only keys that can
// change while running (orderMessageEnable); a fixed key (listenPort, scan and expiry periods)
// or an unknown one is refused with SYSTEM_ERROR naming it, and nothing changes. 319 reports
// every known key.
//
// Replies:
//  * SUCCESS (0) with the header fields / body of the code (docs/compatibility.md).
//  * SYSTEM_ERROR (1) for bad input, with a remark saying what: a missing or malformed header
//    field (named, e.g. "RegisterBrokerRequestHeader: missing field brokerAddr"), an empty
//    name, a body that is not the expected JSON (the path of the bad field), a registration
//    body whose CRC does not match bodyCrc32 ("crc32 not match", as RocketMQ), a compressed
//    registration body (not supported), or a full table (the table named).
//  * TOPIC_NOT_EXIST (17) for a route of an unknown topic, with RocketMQ's remark.
//  * QUERY_NOT_FOUND (22) for a missing KV key or namespace.
// Bad input never throws and never changes a table.
//
// Synchronous: process() runs on the NameServer's loop and returns the reply.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <string>

#include "namesrv/kv_config.h"
#include "namesrv/namesrv_config.h"
#include "namesrv/route_table.h"
#include "remoting/remoting_command.h"
#include "runtime/log_limiter.h"
#include "runtime/runtime.h"

namespace ferry::namesrv {

class RequestProcessor {
 public:
  // The processor keeps references to all four; they must outlive it.
  RequestProcessor(Runtime& rt, NameServerConfig& config, RouteTable& routes, KvConfig& kv);

  // Saves applied 318 changes into the daemon's configuration file; errors are reported to the
  // requester (the change stays applied).
  using Persister = std::function<Status(const std::map<std::string, std::string>& changes)>;
  void set_persister(Persister p) { persister_ = std::move(p); }

  // The request codes process() serves.
  static std::span<const std::int32_t> codes();

  // The reply to `request`, which arrived on connection `channel` (brokers are tied to the
  // connection they register on). `request.code` must be one of codes().
  remoting::RemotingCommand process(ChannelId channel, const remoting::RemotingCommand& request);

 private:
  using Command = remoting::RemotingCommand;
  Command register_broker(ChannelId channel, const Command& request);
  Command unregister_broker(const Command& request);
  Command route_by_topic(const Command& request);
  Command cluster_info(const Command& request);
  Command all_topics(const Command& request);
  Command delete_topic(const Command& request);
  Command topics_by_cluster(const Command& request);
  Command put_kv(const Command& request);
  Command get_kv(const Command& request);
  Command delete_kv(const Command& request);
  Command kv_list(const Command& request);
  Command write_perm(const Command& request);
  Command update_config(const Command& request);
  Command get_config(const Command& request);

  Runtime& rt_;
  NameServerConfig& config_;
  Persister persister_;
  RouteTable& routes_;
  KvConfig& kv_;
  LogLimiter register_log_;  // REGISTER_BROKER refusals (1 bad crc, 2 refused, 3 ignored)
};

// SYSTEM_ERROR (1) with `what` as the remark: the reply to bad input.
remoting::RemotingCommand error_reply(const remoting::RemotingCommand& request, std::string what);

}  // namespace ferry::namesrv
