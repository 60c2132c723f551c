// PullHoldService: long polling (RocketMQ's PullRequestHoldService).
//
// A pull that finds nothing (PULL_NOT_FOUND) with the suspend flag waits here until
//   * a message is dispatched to its queue past the offset it asked for (on_arrival, called
//     from the store's arrival listener) -> arrived,
//   * the periodic re-check (every long_polling_check_interval, 5 s) sees the queue's max offset
//     past it (covers anything on_arrival could miss) -> arrived,
//   * its timeout passes -> timed_out,
//   * stop() (graceful broker stop) -> stopped.
// The pull processor then runs the pull once more and replies, whatever it finds.
//
// Bounded: at most parked_pulls_max waiters; wait() returns `full` at once beyond that.
// Cancellation: destroying a waiting frame (node crash) removes its entry and cancels its
// timer. Wakes are posted through the executor (never inline), so on_arrival may be called from
// inside a store put.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "broker/broker_config.h"
#include "common/offsets.h"
#include "runtime/completion.h"
#include "runtime/runtime.h"
#include "store/message_store.h"

namespace ferry::broker {

class PullHoldService {
 public:
  enum class Wake : std::uint8_t { arrived, timed_out, stopped, full };

  PullHoldService(Runtime& rt, const BrokerConfig& config, store::MessageStore& store);
  PullHoldService(const PullHoldService&) = delete;
  PullHoldService& operator=(const PullHoldService&) = delete;

  // Waits for a message past `offset` in topic-queue (see above).
  Task<Wake> wait(std::string topic, QueueId queue, QueueOffset offset, Duration timeout);
  // A message reached topic-queue; its max offset is now `max_offset`.
  void on_arrival(const std::string& topic, QueueId queue, QueueOffset max_offset);
  // Re-checks every parked pull against the store, every interval, until its frame is destroyed.
  Task<void> run_check_loop();
  // Releases every parked pull (`stopped`) and makes later waits return `stopped` at once.
  void stop();

  std::size_t parked() const { return parked_; }

 private:
  using Key = std::pair<std::string, std::int32_t>;
  struct Parked {
    QueueOffset offset;
    Completion<Wake> done;
    TimerId timer;
  };
  void release(const Key& key, std::uint64_t seq, Wake why);
  void release_past(const Key& key, QueueOffset max_offset);

  Runtime& rt_;
  const BrokerConfig& config_;
  store::MessageStore& store_;
  std::map<Key, std::map<std::uint64_t, Parked>> waiting_;  // by topic-queue, then arrival order
  std::uint64_t next_seq_ = 0;
  std::size_t parked_ = 0;
  bool stopped_ = false;
};

}  // namespace ferry::broker
