// NameServerList: calls "a NameServer" with fail-over (RocketMQ's NettyRemotingClient
// namesrvAddrChoosed / namesrvIndex).
//
// The list starts at an index drawn from the runtime's Random and sticks to the NameServer that
// last answered. A call that gets no reply from it (connect refused or timed out, the call timed
// out, the connection broke) moves to the next NameServer and tries again, each NameServer at
// most once per call (calls in flight together each walk the whole list, from where it stood
// when they began), each try bounded by `timeout`. A reply with any code is an answer (the
// caller judges the code) and ends the call.
//
// Errors: invalid_argument (the list is empty), or the last transport error with every address
// tried named in the detail. Loop thread only; the RpcClient must outlive every call.
#pragma once

#include <string>
#include <vector>

#include "remoting/rpc/rpc_client.h"
#include "runtime/log_limiter.h"

namespace ferry::client {

class NameServerList {
 public:
  NameServerList(Runtime& rt, remoting::RpcClient& rpc, std::vector<std::string> addrs, Duration timeout);

  Task<Result<remoting::RemotingCommand>> invoke(remoting::RemotingCommand request);

  // Replaces the list (RocketMQ's updateNameServerAddressList); keeps the current one if listed.
  void update(std::vector<std::string> addrs);
  const std::vector<std::string>& addrs() const { return addrs_; }
  // The NameServer the next call goes to first.
  const std::string& current() const;
  // Calls that had to move to another NameServer (for tests and logs).
  std::uint64_t failovers() const { return failovers_; }

 private:
  Runtime& rt_;
  remoting::RpcClient& rpc_;
  std::vector<std::string> addrs_;
  Duration timeout_;
  std::size_t index_ = 0;
  std::uint64_t failovers_ = 0;
  LogLimiter failover_log_;  // NameServers that did not answer (every call while one is down), by Errc
};

}  // namespace ferry::client
