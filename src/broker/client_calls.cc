#include "broker/client_calls.h"

#include <fmt/format.h>

#include "runtime/assert.h"

namespace ferry::broker {

remoting::RpcServer& ClientCalls::server_of(const ClientChannel& client) {
  FERRY_ASSERT(client.channel != nullptr, "client call to '{}' without a channel", client.client_id);
  const auto tag = static_cast<ServerTag>(client.key >> 56);
  FERRY_ASSERT(tag == ServerTag::main || tag == ServerTag::vip, "client '{}' has key {:#x} of no server", client.client_id,
               client.key);
  return tag == ServerTag::vip ? vip_ : main_;
}

Task<Result<remoting::RemotingCommand>> ClientCalls::call(ClientChannel client, remoting::RemotingCommand request,
                                                          Duration timeout) {
  if (in_flight_ >= calls_in_flight_max_) {
    co_return Error(Errc::busy, fmt::format("{} calls to clients are waiting already", in_flight_));
  }
  remoting::RpcServer& server = server_of(client);
  ++in_flight_;
  Task<Result<remoting::RemotingCommand>> t = server.invoke_on(client.channel, std::move(request), timeout);
  Result<remoting::RemotingCommand> r = co_await std::move(t);
  --in_flight_;
  co_return r;
}

Task<Status> ClientCalls::oneway(ClientChannel client, remoting::RemotingCommand request) {
  remoting::RpcServer& server = server_of(client);
  Task<Status> t = server.invoke_oneway_on(client.channel, std::move(request));
  co_return co_await std::move(t);
}

}  // namespace ferry::broker
