// ConsumeRates: a push consumer's pull and consume rates per subscribed topic over the last
// minute, for GET_CONSUMER_RUNNING_INFO's statusTable (RocketMQ's ConsumerStatsManager, which
// keeps minute snapshots of the same counters).
//
// Each topic has 60 one-second buckets on the node's monotonic clock (a ring: a bucket older
// than a minute is reused). Rates are the sums over the buckets younger than a minute divided by
// 60 s; RTs are the mean of the calls recorded there (ms). Bounded: topics are fixed at
// construction (the subscriptions); records for another topic are ignored. Loop thread only.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "remoting/body/consumer_running_info.h"
#include "runtime/time.h"

namespace ferry::client {

class ConsumeRates {
 public:
  static constexpr std::size_t kBuckets = 60;  // one a second: the last minute

  explicit ConsumeRates(const std::vector<std::string>& topics);

  // A pull of `topic` that found `messages` after `rt`.
  void pulled(const std::string& topic, std::int64_t messages, Duration rt, MonoTime now);
  // A listener call on `topic` that took `rt`: `ok` messages consumed, `failed` to consume again.
  void consumed(const std::string& topic, std::int64_t ok, std::int64_t failed, Duration rt, MonoTime now);

  remoting::body::ConsumeStatus status(const std::string& topic, MonoTime now) const;

 private:
  struct Bucket {
    std::int64_t second = -1;  // which second since the clock's epoch this bucket counts
    std::int64_t pulls = 0;
    std::int64_t pulled = 0;
    std::int64_t pull_rt_ms = 0;
    std::int64_t calls = 0;
    std::int64_t ok = 0;
    std::int64_t failed = 0;
    std::int64_t consume_rt_ms = 0;
  };
  using Ring = std::array<Bucket, kBuckets>;
  // The bucket of `now` in `topic`'s ring (reset when it held an older second), or nullptr.
  Bucket* bucket(const std::string& topic, MonoTime now);

  std::map<std::string, Ring> rings_;
};

}  // namespace ferry::client
