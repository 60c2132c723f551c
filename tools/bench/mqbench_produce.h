// The producing side of mqbench, shared by `mqbench produce` and `mqbench e2e`: N producers (each
// its own ClientInstance, so its own TCP connection to every broker), each keeping at most W
// requests in flight, on one event loop (the main thread's AsioRuntime).
//
//   sync:   W coroutines per producer, each awaiting Producer::send() (or send_batch()) before
//           its next request
//   async:  one coroutine per producer issuing Producer::send_async() (batches: a task per
//           send_batch()) while fewer than W of its requests await their outcome
//   oneway: W coroutines per producer awaiting Producer::send_oneway() (done when the request is
//           handed to the connection: no acknowledgement exists); no batches
//   transaction: W coroutines per producer awaiting TransactionProducer::send_in_transaction()
//           (the half message, a local transaction that commits at once, COMMIT oneway: a
//           message's cost as a transaction, beside sync's as a plain send); no batches
//
// A request is one message, or with `batch` > 1 one SEND_BATCH_MESSAGE of `batch` messages (the
// window counts requests). Latency of a message: from just before its request's send call to the
// request's outcome (every message of a batch gets its batch's latency). Only SEND_OK counts as
// ok; any other status and every error counts as an error by kind (a failed batch: `batch`
// errors). Percentiles come from LatencyHistogram (ok messages only), per second for the report
// line and over the whole run for the summary.
//
// The run ends when `seconds` have passed or, with `messages` > 0, when that many messages have
// been handed to sends, whichever comes first; then no new request starts, requests in flight are
// awaited (each is bounded by the producer's 3 s send timeout, the whole drain by 10 s) and
// counted, and the summary's rates divide by the time including that drain. With `rate` > 0 the
// requests start on a fixed schedule, message k at start + k / rate seconds (an open schedule: a
// sender that fell behind, e.g. on a full window, catches up without waiting); latency is still
// measured from the actual send call.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "client/producer.h"
#include "tools/bench/mqbench_common.h"

namespace ferry::bench {

enum class ProduceMode : std::uint8_t { sync, async, oneway, transaction };
std::string_view mode_name(ProduceMode m);

struct ProduceOptions {
  std::vector<std::string> namesrv;
  std::string topic;
  std::size_t size_bytes = 1024;
  int producers = 1;  // --producers / --connections
  int window = 64;    // requests in flight per producer
  int batch = 1;      // messages per request
  ProduceMode mode = ProduceMode::async;
  std::int64_t seconds = 10;
  std::int64_t messages = 0;  // 0: no count limit
  double rate = 0;            // msg/s over all producers; 0: as fast as the window allows
  bool create_topic = false;
  int queues = 8;
  std::optional<std::string> cluster;
  std::string group;
  bool keys = false;
  std::optional<std::string> tag;
  // --timer-delay-ms MIN[-MAX]: every message a timer message (TIMER_DELAY_MS), its delay spread
  // evenly over [MIN, MAX] by its sequence number; the consumer then reports lateness.
  std::optional<std::pair<std::int64_t, std::int64_t>> timer_delay_ms;
  bool json = false;  // human-readable lines go to stderr, the figures as JSON to stdout
};

// The flags of the producing side (the e2e subcommand adds its own), and reading them; the error
// is a usage message.
const std::vector<cli::FlagSpec>& produce_flag_specs();
Result<ProduceOptions> produce_options(const BenchArgs& a);

// The summary's figures, for the human summary and for --json.
struct ProduceFigures {
  std::uint64_t sent_ok = 0;
  std::uint64_t errors = 0;  // error outcomes plus requests still in flight after the drain
  double send_seconds = 0;
  double total_seconds = 0;  // sending plus draining
  double msgs_per_s = 0;
  double mb_per_s = 0;
  const LatencyHistogram* latency = nullptr;
};

class ProduceBench {
 public:
  ProduceBench(ProduceOptions o, BenchRuntime& br);
  ~ProduceBench();

  // Starts the producers, creates the topic when asked, fetches routes and prints the intro line:
  // kExitOk, or kExitFailed after printing why (then call close()).
  Task<int> open();
  // Sends until the time or the count is reached and drains; prints the per-second lines.
  Task<void> send();
  // Prints the summary (human) and returns the figures.
  ProduceFigures summary();
  // "produce": {...} figures as a JSON object's members (no braces).
  std::string json_members() const;
  // Shuts the producers down unless sends are stuck; the exit code of the whole run.
  Task<int> close();
  // Sends still in flight after the drain bound: their tasks refer to the producers, so the bench
  // must then outlive the runtime (the caller leaks it; the process ends right after).
  bool stuck() const;
  std::uint64_t sent_ok() const;

  struct State;

 private:
  std::unique_ptr<State> s_;
};

}  // namespace ferry::bench
