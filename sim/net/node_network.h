// NodeNetwork: the Network interface of one node, forwarding to the world's SimNetwork.
#pragma once

#include "runtime/network.h"
#include "sim/ids.h"

namespace ferry::sim {

class SimNetwork;

class NodeNetwork final : public Network {
 public:
  NodeNetwork(SimNetwork& net, NodeId node) : net_(net), node_(node) {}

  // `addr.host` must be this node's address or "0.0.0.0" (which binds this node's address).
  Result<std::unique_ptr<Listener>> listen(const Endpoint& addr) override;
  Task<Result<std::unique_ptr<Connection>>> connect(Endpoint addr, Duration timeout) override;
  std::string host() const override;

 private:
  SimNetwork& net_;
  NodeId node_;
};

}  // namespace ferry::sim
