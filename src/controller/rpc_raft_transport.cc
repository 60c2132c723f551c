#include "controller/rpc_raft_transport.h"

#include "remoting/request_code.h"

namespace ferry::controller {

void RpcRaftTransport::serve(remoting::RpcServer& server, RaftNode& node) {
  server.register_processor(
      remoting::request_code::FERRY_RAFT_MESSAGE,
      [&node](remoting::RequestContext ctx) -> Task<std::optional<remoting::RemotingCommand>> {
        node.receive(ctx.request.body);
        co_return std::nullopt;
      });
}

void RpcRaftTransport::send(const RaftPeer& to, std::vector<std::uint8_t> message) {
  std::size_t& n = in_flight_[to.address];
  if (n >= kSendsInFlightMax) {
    ++dropped_;
    return;
  }
  ++n;
  rt_.spawn(send_one(this, alive_, to.address, std::move(message)), "raft-send");
}

Task<void> RpcRaftTransport::send_one(RpcRaftTransport* self, std::shared_ptr<bool> alive,
                                      std::string addr, std::vector<std::uint8_t> message) {
  remoting::RemotingCommand cmd = remoting::make_request(remoting::request_code::FERRY_RAFT_MESSAGE, 0);
  cmd.body = std::move(message);
  Status sent = co_await self->client_.invoke_oneway(addr, std::move(cmd));
  if (!*alive) co_return;
  --self->in_flight_[addr];
  if (!sent.ok()) ++self->dropped_;  // the peer is down or unreachable: Raft resends
}

}  // namespace ferry::controller
