// PopHoldService: long polling for POP_MESSAGE (RocketMQ 5's PopLongPollingService).
//
// A POP that found nothing, with pollTime > 0, waits here on the topics it reads (the topic and,
// unless FIFO, the group's POP retry topic) until
//   * a message reaches one of them (on_arrival, from the store's arrival listener) -> arrived,
//   * a FIFO queue it skipped unlocks (notify(), from an ack or an expired batch) -> arrived,
//   * its poll time passes -> timed_out,
//   * stop() (graceful broker stop) -> stopped.
// The POP then runs once more and replies with what it finds (POLLING_TIMEOUT when nothing).
//
// Bounded: at most popPollingSize waiters per (topic, group) and maxPopPollingSize in all; beyond
// either, wait() returns `full` at once (the POP answers POLLING_FULL). Destroying a waiting frame
// (node crash) removes it and cancels its timer. Wakes are posted through the executor.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "broker/broker_config.h"
#include "runtime/completion.h"
#include "runtime/runtime.h"

namespace ferry::broker {

class PopHoldService {
 public:
  enum class Wake : std::uint8_t { arrived, timed_out, stopped, full };

  PopHoldService(Runtime& rt, const BrokerConfig& config) : rt_(rt), config_(config) {}
  PopHoldService(const PopHoldService&) = delete;
  PopHoldService& operator=(const PopHoldService&) = delete;

  // Waits for a message on any of `topics` (see above); `group` counts against popPollingSize.
  Task<Wake> wait(std::vector<std::string> topics, std::string group, Duration timeout);
  void on_arrival(const std::string& topic);
  // Wakes every POP of `group` waiting on `topic` (a FIFO queue unlocked).
  void notify(const std::string& topic, const std::string& group);
  void stop();

  std::size_t parked() const { return waiters_.size(); }

 private:
  struct Waiter {
    std::vector<std::string> topics;
    std::string group;
    Completion<Wake> done;
    TimerId timer;
  };
  void release(std::uint64_t seq, Wake why);

  Runtime& rt_;
  const BrokerConfig& config_;
  std::map<std::uint64_t, Waiter> waiters_;                 // by arrival order
  std::map<std::string, std::set<std::uint64_t>> by_topic_;  // watched topic -> waiters
  std::map<std::pair<std::string, std::string>, std::size_t> per_group_;  // (topic, group) -> waiters
  std::uint64_t next_seq_ = 0;
  bool stopped_ = false;
};

}  // namespace ferry::broker
