#include "controller/controller_config.h"

#include <set>

#include <fmt/format.h>

namespace ferry::controller {

Result<std::vector<ControllerPeer>> ControllerConfig::parse_peers(const std::string& text) {
  std::vector<ControllerPeer> out;
  std::string_view rest = text;
  while (!rest.empty()) {
    const auto semi = rest.find(';');
    std::string_view item = rest.substr(0, semi);
    rest = semi == std::string_view::npos ? std::string_view{} : rest.substr(semi + 1);
    if (item.empty()) continue;
    const auto dash = item.find('-');
    if (dash == std::string_view::npos || dash == 0 || dash + 1 == item.size() ||
        item.find(':', dash) == std::string_view::npos) {
      return Error(Errc::invalid_argument,
                   fmt::format("controller peer '{}' is not <id>-<ip>:<port> (e.g. n0-127.0.0.1:9878)", item));
    }
    out.push_back(ControllerPeer{std::string(item.substr(0, dash)), std::string(item.substr(dash + 1))});
  }
  return out;
}

Status ControllerConfig::validate() const {
  if (peers.empty()) return Error(Errc::invalid_argument, "controllerDLegerPeers names no controller");
  std::set<std::string> names, addresses;
  for (const ControllerPeer& p : peers) {
    if (!names.insert(p.name).second) {
      return Error(Errc::invalid_argument, fmt::format("controllerDLegerPeers names {} twice", p.name));
    }
    if (!addresses.insert(p.address).second) {
      return Error(Errc::invalid_argument, fmt::format("controllerDLegerPeers lists {} twice", p.address));
    }
  }
  if (self_peer() == nullptr) {
    return Error(Errc::invalid_argument,
                 fmt::format("controllerDLegerSelfId '{}' is not among controllerDLegerPeers", self));
  }
  return {};
}

raft_id ControllerConfig::id_of(const std::string& name) const {
  for (std::size_t i = 0; i < peers.size(); ++i) {
    if (peers[i].name == name) return i + 1;
  }
  return 0;
}

const ControllerPeer* ControllerConfig::self_peer() const {
  for (const ControllerPeer& p : peers) {
    if (p.name == self) return &p;
  }
  return nullptr;
}

RaftOptions ControllerConfig::raft_options() const {
  RaftOptions o;
  o.id = id_of(self);
  for (std::size_t i = 0; i < peers.size(); ++i) o.peers.push_back(RaftPeer{i + 1, peers[i].address});
  o.dir = store_path + "/raft";
  o.heartbeat = raft_heartbeat;
  o.election_timeout = raft_election_timeout;
  return o;
}

}  // namespace ferry::controller
