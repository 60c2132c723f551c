// The consuming side of mqbench, shared by `mqbench consume` and `mqbench e2e`: one push consumer
// (clustering, its own ClientInstance) of a group; the listener returns CONSUME_SUCCESS for every
// message. With `pop` > 0, a POP consumer instead (RocketMQ 5; client/pop_consumer.h): that many
// receive loops on the client's loop, each receiving up to `pop_batch` messages, recording them as
// the listener would and acknowledging them in one BATCH_ACK_MESSAGE per receive.
//
// Per message, in the listener (an offload thread of the runtime): the end-to-end latency, the
// wall clock at receipt minus the body's microsecond stamp for an mqbench body (mqbench_common.h),
// else minus the message's born timestamp (the producer's clock when it built the message; ms
// resolution, so up to 1 ms high). Both are meaningful only when producer and consumer clocks
// agree: a stamp in the future is counted and recorded as 0. Also the body size and the body's
// mqbench checksum: a body with the mqbench magic but a wrong CRC is an error ("corrupt body"); a
// body without the magic is "foreign" (another producer), not an error. Messages with
// reconsumeTimes > 0 are counted as redelivered.
//
// The listener threads and the report loop share the counters under one mutex. The summary's
// throughput divides by the whole run and, separately, by the time between the first and the last
// message received (the time the consumer was busy, e.g. draining a backlog from --from first).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "tools/bench/mqbench_common.h"

namespace ferry::bench {

struct ConsumeOptions {
  std::vector<std::string> namesrv;
  std::string topic;
  std::string group;
  std::string expression = "*";
  std::int64_t seconds = 10;
  std::int64_t messages = 0;  // > 0: stop once this many were received
  bool from_first = false;
  int threads = 20;
  int batch = 1;
  int pop = 0;         // > 0: POP consumption with this many receive loops
  int pop_batch = 32;  // messages per POP
  bool json = false;  // human-readable lines go to stderr
};

class ConsumeBench {
 public:
  ConsumeBench(ConsumeOptions o, BenchRuntime& br);
  ~ConsumeBench();

  // Subscribes and starts the consumer, prints the intro line and starts the per-second lines:
  // kExitOk, or kExitFailed after printing why (then call close()).
  Task<int> open();
  // Waits until `seconds` passed since open(), `messages` were received, or `enough()` says so
  // (checked every 10 ms; may be empty).
  Task<void> wait(std::function<bool(std::uint64_t received)> enough);
  // Stops the per-second lines and the consumer (which commits the group's offsets).
  Task<void> stop();
  void summary();
  std::string json_members() const;
  // Shuts the client down; kExitOk when no body was corrupt.
  Task<int> close();
  std::uint64_t received() const;
  // The consumer holds at least one queue and has sent a pull for each it holds (so that a
  // message sent now is pulled without waiting for a rebalance).
  bool pulling() const;

  struct State;

 private:
  std::unique_ptr<State> s_;
};

}  // namespace ferry::bench
