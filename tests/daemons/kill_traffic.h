// Senders that load a broker over the wire and kill a daemon in the middle of it: `senders`
// coroutines each send up to 5,000 bodies ("s{id}-{seq}") to queue id % queues of `topic`, and the
// send that makes the acknowledgements reach kill_after_acks sends SIGKILL to `victim` while the
// others are still in flight. Every SEND_OK lands in `acked` by (queue id, queue offset). A sender
// stops when its call fails (the broker is gone); a reply other than SUCCESS is counted in
// `other_codes` and, with stop_on_refusal, stops it too.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "remoting/rpc/rpc_client.h"
#include "runtime/asio/asio_runtime.h"
#include "runtime/task.h"

namespace ferry::daemons_test {

struct KillTraffic {
  remoting::RpcClient* rpc = nullptr;
  std::string addr;
  std::string topic;
  std::int32_t queues = 4;
  pid_t victim = 0;
  int kill_after_acks = 0;
  bool stop_on_refusal = true;

  int acks = 0;
  bool killed = false;
  int running = 0;
  std::map<std::pair<std::int32_t, std::int64_t>, std::string> acked;  // SEND_OK only
  std::map<int, int> other_codes;  // reply code -> how many
};

// Runs `senders` senders on `rt` until all have stopped.
Task<void> run_kill_traffic(KillTraffic* t, AsioRuntime* rt, int senders);

}  // namespace ferry::daemons_test
