// ClientNotifier: the broker's calls to clients (RocketMQ's Broker2Client), for now only
// NOTIFY_CONSUMER_IDS_CHANGED (40): oneway, header consumerGroup, sent to each given channel.
//
// Sends go out through the main server's RpcPeer also to channels of the VIP server (a oneway
// frame needs nothing of the peer but an opaque).
// Each send runs in its own task (a client with a full write queue delays only its own
// notification). Bounded: at most sends_in_flight_max sends at a time; beyond that a
// notification is dropped with a warning and counted in dropped() — clients also rebalance
// every 20 s, so a dropped notification delays a rebalance, it loses nothing.
// Lifetime: owned by the Broker, which outlives the node's tasks.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "remoting/rpc/rpc_server.h"
#include "runtime/log_limiter.h"

namespace ferry::broker {

class ClientNotifier {
 public:
  ClientNotifier(Runtime& rt, remoting::RpcServer& server, std::size_t sends_in_flight_max = 4096)
      : rt_(rt), server_(server), sends_in_flight_max_(sends_in_flight_max) {}

  void notify_consumer_ids_changed(const std::string& group,
                                   const std::vector<std::shared_ptr<remoting::Channel>>& channels);

  std::uint64_t sent() const { return sent_; }
  std::uint64_t dropped() const { return dropped_; }

 private:
  static Task<void> send_one(ClientNotifier* self, std::shared_ptr<remoting::Channel> ch, std::string group);

  Runtime& rt_;
  remoting::RpcServer& server_;
  std::size_t sends_in_flight_max_;
  std::size_t in_flight_ = 0;
  std::uint64_t sent_ = 0;
  std::uint64_t dropped_ = 0;
  LogLimiter dropped_log_;  // notifications dropped for sends_in_flight_max
  LogLimiter failed_log_;   // sends that failed, by Errc
};

}  // namespace ferry::broker
