// WireClient: real RocketMQ frames from the test process to a daemon, through RpcClient on an
// AsioRuntime whose loop runs on the calling thread (block_on per call). The requests are the
// test kit's (tests/support/requests.h); for raw frames, see tests/support/wire_conn.h.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "remoting/remoting_command.h"
#include "remoting/rpc/rpc_client.h"
#include "runtime/asio/asio_runtime.h"
#include "runtime/task.h"

namespace ferry::daemons_test {

struct SendOutcome {
  int code = -1;  // response code, or -1 when the call failed (connection refused, reset, timeout)
  std::int32_t queue_id = -1;
  std::int64_t queue_offset = -1;
  std::string error;
};

struct PulledMessage {
  std::int32_t queue_id = 0;
  std::int64_t queue_offset = 0;
  std::string body;
};

// PULL_MESSAGE of up to 32 messages of `topic`/`queue_id` from `offset` (group daemons-test-cg,
// subscription "*", no suspend, no commit); opaque 0 (RpcClient and WireConn set their own).
remoting::RemotingCommand make_pull_request(std::string topic, std::int32_t queue_id, std::int64_t offset);

class WireClient {
 public:
  explicit WireClient(const std::string& data_root);
  ~WireClient();

  AsioRuntime& rt() { return *rt_; }
  remoting::RpcClient& rpc() { return *rpc_; }

  // Coroutines, for tests that run several calls at once on rt().
  static Task<SendOutcome> send(remoting::RpcClient* rpc, std::string addr, std::string topic, std::int32_t queue_id,
                                std::string body);
  // Pulls one batch (subscription "*"); returns the reply code and appends what it found.
  static Task<int> pull(remoting::RpcClient* rpc, std::string addr, std::string topic, std::int32_t queue_id,
                        std::int64_t offset, std::vector<PulledMessage>* out, std::int64_t* next);

  // Blocking wrappers.
  SendOutcome send_now(const std::string& addr, const std::string& topic, std::int32_t queue_id, const std::string& body);
  // Everything in the queue from offset 0 until the broker says there is no more.
  std::vector<PulledMessage> pull_all(const std::string& addr, const std::string& topic, std::int32_t queue_id);
  // Reply code of UPDATE_CONSUMER_OFFSET, or -1 when the call failed.
  int update_offset(const std::string& addr, const std::string& group, const std::string& topic, std::int32_t queue_id,
                    std::int64_t offset);
  // QUERY_CONSUMER_OFFSET: the offset, or nullopt with the reply code in `code`.
  std::optional<std::int64_t> query_offset(const std::string& addr, const std::string& group, const std::string& topic,
                                           std::int32_t queue_id, int* code = nullptr);
  // GET_ROUTEINFO_BY_TOPIC at a NameServer: the reply code (-1 when the call failed) and body.
  int route(const std::string& namesrv_addr, const std::string& topic, std::string* body = nullptr);

 private:
  std::unique_ptr<AsioRuntime> rt_;
  std::unique_ptr<remoting::RpcClient> rpc_;
};

}  // namespace ferry::daemons_test
