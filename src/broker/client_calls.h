// ClientCalls: the broker's requests over a client's own connection (RocketMQ's
// Broker2Client.callClient / invokeOneway) — the one place that knows which of the broker's
// servers (the main port or the VIP port, ServerTag in client_channel.h) accepted a client's
// connection, since a reply is matched by the server whose channel it arrives on.
//
// call() sends a request and waits for the client's reply, at most `timeout` (the runtime's
// timers). Errors: timed_out; closed / reset (the connection went away first); busy (more than
// calls_in_flight_max calls are waiting: the call is not sent); invalid_argument (a frame too
// large). oneway() sends with the oneway flag and returns once the frame is queued for writing.
//
// Bounds: calls_in_flight_max waiting calls over all clients (each also holds one pending-call
// slot of its server, RpcOptions). Lifetime: owned by the Broker with its servers; loop only.
#pragma once

#include <cstddef>

#include "broker/client_channel.h"
#include "remoting/rpc/rpc_server.h"

namespace ferry::broker {

class ClientCalls {
 public:
  ClientCalls(remoting::RpcServer& main, remoting::RpcServer& vip, std::size_t calls_in_flight_max = 256)
      : main_(main), vip_(vip), calls_in_flight_max_(calls_in_flight_max) {}
  ClientCalls(const ClientCalls&) = delete;
  ClientCalls& operator=(const ClientCalls&) = delete;

  Task<Result<remoting::RemotingCommand>> call(ClientChannel client, remoting::RemotingCommand request, Duration timeout);
  Task<Status> oneway(ClientChannel client, remoting::RemotingCommand request);

  std::size_t in_flight() const { return in_flight_; }

 private:
  remoting::RpcServer& server_of(const ClientChannel& client);

  remoting::RpcServer& main_;
  remoting::RpcServer& vip_;
  const std::size_t calls_in_flight_max_;
  std::size_t in_flight_ = 0;
};

}  // namespace ferry::broker
