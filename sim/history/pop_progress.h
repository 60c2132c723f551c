// What the liveness phase waits for in a POP consumer group (RocketMQ 5) besides every
// acknowledged message being consumed: that nothing it was handed is still out without an ack. A
// message is settled when its latest POP delivery to the group (in pop_order, history.h: the
// broker's order, which a held-up reply does not change) was acknowledged (an ack sent: the broker
// may have taken one the consumer never heard back from) or went out with reconsumeTimes at the
// DLQ threshold, or its broker logged an error since (broker_logged_error_since: a failed disk);
// one left unacknowledged must come back, which makes a new latest delivery. Reads the History
// incrementally (the liveness phase asks after every event).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <utility>

#include "sim/history/history.h"

namespace ferry::sim {

class PopProgress {
 public:
  // `retry_max`: a delivery with this many reconsumes goes to the DLQ when not acknowledged.
  PopProgress(std::shared_ptr<const History> h, std::string group, std::int32_t retry_max)
      : h_(std::move(h)), group_(std::move(group)), retry_max_(retry_max) {}

  // How many messages of the group are unsettled, and the latest delivery of the first of them
  // (nullptr: none).
  std::pair<std::size_t, const ConsumeRecord*> unsettled();

 private:
  using Key = std::tuple<std::string, std::uint64_t>;  // producer, seq
  std::shared_ptr<const History> h_;
  std::string group_;
  std::int32_t retry_max_ = 16;
  std::size_t consumes_seen_ = 0;
  std::size_t acks_seen_ = 0;
  std::map<Key, std::uint64_t> latest_;  // message -> its latest delivery (consume index)
  std::set<std::uint64_t> acked_;        // deliveries an ack was sent for
  std::set<Key> open_;                   // messages whose latest delivery is not settled
};

}  // namespace ferry::sim
