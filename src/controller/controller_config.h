// ControllerConfig: a controller's settings, with RocketMQ 5's keys (ControllerConfig) and
// defaults. The daemon reads them from controller.conf (or namesrv.conf with
// enableControllerInNamesrv=true); docs/controller.md lists them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "controller/raft_node.h"
#include "runtime/result.h"
#include "runtime/time.h"

namespace ferry::controller {

struct ControllerPeer {
  std::string name;     // "n0": RocketMQ's DLedger peer id
  std::string address;  // "127.0.0.1:9878": where that controller listens
};

struct ControllerConfig {
  std::string group = "DefaultControllerGroup";  // controllerDLegerGroup
  std::vector<ControllerPeer> peers;             // controllerDLegerPeers "n0-ip:port;n1-ip:port"
  std::string self;                              // controllerDLegerSelfId, one of the peers' names
  std::string store_path = "controller";         // controllerStorePath (raft files under it)
  Duration scan_not_active_broker_interval = 5s;  // scanNotActiveBrokerInterval
  bool enable_elect_unclean_master = false;       // enableElectUncleanMaster
  bool notify_broker_role_changed = true;         // notifyBrokerRoleChanged
  Duration raft_heartbeat = 100ms;
  Duration raft_election_timeout = 1s;

  // Parses "n0-127.0.0.1:9878;n1-127.0.0.1:9868" (empty items skipped). Errors
  // (invalid_argument) name the item.
  static Result<std::vector<ControllerPeer>> parse_peers(const std::string& text);
  // Checks: at least one peer, unique names and addresses, `self` among them.
  Status validate() const;
  // The Raft id of peer `name` (its position in `peers`, from 1), 0 when unknown.
  raft_id id_of(const std::string& name) const;
  const ControllerPeer* self_peer() const;
  // The Raft options for this controller: the peers as RaftPeers, files under store_path/raft.
  RaftOptions raft_options() const;
};

}  // namespace ferry::controller
