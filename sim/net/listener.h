// SimListener: a listening port of a simulated node.
//
// Connects that reach the port while it listens are established at once (as a kernel would) and
// queue in the backlog (bounded by accept_backlog_max; beyond it connects are refused) until
// accept() takes them. close() (or the listener's destruction, or its node's crash) refuses new
// connects, completes a pending accept with Errc::closed and resets the queued connections.
#pragma once

#include <deque>
#include <memory>
#include <optional>

#include "runtime/network.h"
#include "sim/ids.h"
#include "sim/net/stream.h"

namespace ferry::sim {

class SimNetwork;

struct ListenerState {
  NodeId node;
  Endpoint local;
  bool closed = false;
  std::deque<std::shared_ptr<ConnState>> backlog;  // established, not yet accepted (server side = 1)
  std::optional<Completion<bool>> accept_wait;
};

class SimListener final : public Listener {
 public:
  SimListener(SimNetwork& net, std::shared_ptr<ListenerState> state) : net_(net), state_(std::move(state)) {}
  ~SimListener() override { close(); }

  Task<Result<std::unique_ptr<Connection>>> accept() override;
  void close() override;
  const Endpoint& local() const override { return state_->local; }

 private:
  SimNetwork& net_;
  std::shared_ptr<ListenerState> state_;
};

}  // namespace ferry::sim
