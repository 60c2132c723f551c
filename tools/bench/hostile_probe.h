// HostileProbe: the "another client" of `mqbench hostile`. On its own thread and connection it
// sends a 1-byte SEND every `interval` and waits for each reply (one request in flight, no
// retries), recording when each was sent and answered. A reply that does not come within
// `timeout` is recorded as failed and the connection is made again.
//
// The samples are kept in memory (a run lasts seconds to minutes: at most one per interval).
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "tools/bench/hostile_setup.h"

namespace ferry::bench {

struct ProbeSample {
  WireClock::time_point sent;
  WireClock::time_point done;  // the reply, or when the request was given up
  bool ok = false;             // a SEND_OK reply (code 0)
};

// Latencies of the samples that overlapped a window, in ms.
struct ProbeStats {
  std::size_t count = 0;
  std::size_t failed = 0;
  double p50_ms = 0;
  double p99_ms = 0;
  double max_ms = 0;
};

class HostileProbe {
 public:
  HostileProbe(std::string broker_addr, std::string topic, std::chrono::milliseconds interval,
               std::chrono::milliseconds timeout);
  ~HostileProbe();  // stops the thread (waits at most one timeout for the request in flight)
  HostileProbe(const HostileProbe&) = delete;
  HostileProbe& operator=(const HostileProbe&) = delete;

  void start();
  // The samples whose [sent, done] overlaps [from, to].
  ProbeStats stats(WireClock::time_point from, WireClock::time_point to) const;
  // Waits until no request sent before `t` is still unanswered, at most `limit`.
  void wait_answered_since(WireClock::time_point t, std::chrono::milliseconds limit) const;

 private:
  void run();

  const std::string addr_;
  const std::string topic_;
  const std::chrono::milliseconds interval_;
  const std::chrono::milliseconds timeout_;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  mutable std::mutex mu_;
  std::vector<ProbeSample> samples_;                     // under mu_
  std::optional<WireClock::time_point> in_flight_since_;  // under mu_
};

}  // namespace ferry::bench
