#include "sim/net/node_network.h"

#include "sim/net/network.h"

namespace ferry::sim {

Result<std::unique_ptr<Listener>> NodeNetwork::listen(const Endpoint& addr) { return net_.listen(node_, addr); }

Task<Result<std::unique_ptr<Connection>>> NodeNetwork::connect(Endpoint addr, Duration timeout) {
  return net_.connect(node_, std::move(addr), timeout);
}

std::string NodeNetwork::host() const { return net_.host_of(node_); }

}  // namespace ferry::sim
