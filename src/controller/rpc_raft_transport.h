// RpcRaftTransport: Raft messages between controllers as oneway FERRY_RAFT_MESSAGE requests over
// the remoting RPC layer: sent with an RpcClient (one connection per peer, made again after it
// breaks), received by a processor on the controller's RpcServer, which hands the body to the
// RaftNode.
//
// Bounds: at most kSendsInFlightMax messages per peer on their way (waiting for a connection or a
// write); more are dropped and counted (Raft resends).
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "controller/raft_node.h"
#include "remoting/rpc/rpc_client.h"
#include "remoting/rpc/rpc_server.h"

namespace ferry::controller {

class RpcRaftTransport final : public RaftTransport {
 public:
  static constexpr std::size_t kSendsInFlightMax = 256;

  // `client` and `rt` must outlive the transport.
  RpcRaftTransport(Runtime& rt, remoting::RpcClient& client) : rt_(rt), client_(client) {}
  ~RpcRaftTransport() override { *alive_ = false; }

  // Serves FERRY_RAFT_MESSAGE on `server`, delivering to `node` (which must outlive the server's
  // use of it: stop the server first).
  static void serve(remoting::RpcServer& server, RaftNode& node);

  void send(const RaftPeer& to, std::vector<std::uint8_t> message) override;
  std::uint64_t dropped() const { return dropped_; }

 private:
  static Task<void> send_one(RpcRaftTransport* self, std::shared_ptr<bool> alive, std::string addr,
                             std::vector<std::uint8_t> message);

  Runtime& rt_;
  remoting::RpcClient& client_;
  std::map<std::string, std::size_t> in_flight_;  // by peer address
  std::uint64_t dropped_ = 0;
  std::shared_ptr<bool> alive_ = std::make_shared<bool>(true);
};

}  // namespace ferry::controller
