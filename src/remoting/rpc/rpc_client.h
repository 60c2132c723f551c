// RpcClient: calls remoting servers by address ("ip:port"). One connection per address, made on
// first use, shared by all calls to it, and made again after it breaks. Also serves requests a
// server sends to the client (register_processor, e.g. NOTIFY_CONSUMER_IDS_CHANGED).
//
//   RpcClient client(rt);
//   Result<RemotingCommand> reply = co_await client.invoke("127.0.0.1:9876", request, 3s);
//
// Every failure is a value naming the address: connect refused / timed out, the call timed out,
// the connection closed mid-call. A failure fails exactly the calls it concerns.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>

#include "remoting/rpc/rpc_peer.h"

namespace ferry::remoting {

class RpcClient final : public RpcPeer {
 public:
  using Callback = std::function<void(Result<RemotingCommand>)>;

  RpcClient(Runtime& rt, RpcOptions opts = {});
  ~RpcClient() override;

  // Sends `request` to `addr` and waits for the reply (at most `timeout`, connecting included).
  // `fields`: RpcPeer::ReplyFields (the map unless the caller decodes raw fields).
  Task<Result<RemotingCommand>> invoke(std::string addr, RemotingCommand request, Duration timeout,
                                       ReplyFields fields = ReplyFields::map);
  // The same, calling `cb` on the node's loop with the outcome.
  void invoke_async(std::string addr, RemotingCommand request, Duration timeout, Callback cb);
  // Sends without waiting for a reply. Errors: connecting failed, closed.
  Task<Status> invoke_oneway(std::string addr, RemotingCommand request);

  // The open channel to `addr`, connecting if needed.
  Task<Result<std::shared_ptr<Channel>>> channel(std::string addr, Duration timeout);
  // Closes the connection to `addr` (calls on it fail); the next call reconnects.
  void close_channel(const std::string& addr);
  // Closes everything; calls in progress fail. Idempotent.
  void shutdown();

  bool connected(const std::string& addr) const;

 private:
  struct Slot {
    std::shared_ptr<Channel> channel;
    bool connecting = false;
    std::unique_ptr<WaitQueue> waiters;  // calls waiting for the connect in progress
  };
  void channel_closed(const std::shared_ptr<Channel>& ch, const Error& why) override;
  static Task<void> run_async(RpcClient* self, std::string addr, RemotingCommand request,
                              Duration timeout, Callback cb);

  std::map<std::string, Slot> slots_;  // by address
  bool shut_down_ = false;
};

}  // namespace ferry::remoting
