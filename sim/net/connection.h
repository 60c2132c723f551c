// SimConnection: one side of a simulated connection (see network.h for the network's behaviour
// and stream.h for the state). Implements the Connection contract: read_some returns at least one
// byte, or eof once the peer closed in order and everything was read, or reset after the prefix
// that arrived; write completes once every byte is on the simulated wire (waiting while the
// direction's buffer is full); close() is idempotent and completes operations in progress with
// Errc::closed. Destroying the object closes it.
#pragma once

#include <memory>

#include "runtime/network.h"
#include "sim/net/stream.h"

namespace ferry::sim {

class SimNetwork;

class SimConnection final : public Connection {
 public:
  SimConnection(SimNetwork& net, std::shared_ptr<ConnState> state, int side);
  ~SimConnection() override { close(); }

  Task<Result<std::size_t>> read_some(MutableBytes buf) override;
  Task<Status> write(std::span<const Bytes> bufs) override;
  using Connection::write;
  void close() override;
  bool is_open() const override;
  const Endpoint& local() const override { return state_->side[side_].local; }
  const Endpoint& peer() const override { return state_->side[1 - side_].local; }

 private:
  Side& me() { return state_->side[side_]; }

  SimNetwork& net_;
  std::shared_ptr<ConnState> state_;
  int side_;
};

}  // namespace ferry::sim
