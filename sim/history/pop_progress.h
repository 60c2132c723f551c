// What the liveness phase waits for in a POP consumer group (RocketMQ 5) besides every
// acknowledged message being consumed: that nothing it was handed is still out without an ack. A
// message is settled when one of its POP deliveries to the group was finished (acknowledged: an
// ack sent, the broker may have taken one the consumer never heard back from; or handed out with
// reconsumeTimes at the DLQ threshold) and came after each unfinished one: in pop_order
// (history.h: the consumers' times when they tell, else the broker's time of each POP), or as a copy
// from the POP retry topic with more reconsumes that arrived once its invisible time was over
// (revived from it: a POP sent earlier may have been parked, or held up on the way, until the
// copy was there). A message whose broker logged
// an error since its unfinished delivery is settled too (broker_logged_error_since: a failed disk).
// One left unacknowledged must come back, which makes a later delivery. Reads the History
// incrementally (the liveness phase asks after every event).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "sim/history/history.h"

namespace ferry::sim {

class PopProgress {
 public:
  // `retry_max`: a delivery with this many reconsumes goes to the DLQ when not acknowledged.
  PopProgress(std::shared_ptr<const History> h, std::string group, std::int32_t retry_max)
      : h_(std::move(h)), group_(std::move(group)), retry_max_(retry_max) {}

  // How many messages of the group are unsettled, and a delivery keeping the first of them open
  // (nullptr: none).
  std::pair<std::size_t, const ConsumeRecord*> unsettled();

 private:
  using Key = std::tuple<std::string, std::uint64_t>;  // producer, seq
  std::shared_ptr<const History> h_;
  std::string group_;
  std::int32_t retry_max_ = 16;
  std::size_t consumes_seen_ = 0;
  std::size_t acks_seen_ = 0;
  // Whether `key`'s deliveries settle it; the first unfinished one that keeps it open, if any.
  std::optional<std::uint64_t> open_delivery(const Key& key) const;
  std::map<Key, std::vector<std::uint64_t>> deliveries_;  // message -> its deliveries (consume indexes)
  std::set<std::uint64_t> acked_;                         // deliveries an ack was sent for
  std::map<Key, std::uint64_t> open_;                     // unsettled messages -> a delivery keeping each open
};

}  // namespace ferry::sim
