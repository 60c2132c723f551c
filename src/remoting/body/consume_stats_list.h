// GET_BROKER_CONSUME_STATS (317) reply body, RocketMQ 4.9's ConsumeStatsList: per subscription
// group of the broker, a ConsumeStats per topic it has offsets on (fastjson's field order):
//   {"brokerAddr":"ip:port",
//    "consumeStatsList":[{"G1":[{ConsumeStats of T1},{ConsumeStats of T2}]},{"G2":[]}],
//    "totalDiff":N}
// Each element of consumeStatsList is a one-entry map (group → list); a reader accepts maps of
// any size and flattens them in order. totalDiff is Σ brokerOffset − consumerOffset over all.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "remoting/body/admin_stats.h"
#include "runtime/bytes.h"
#include "runtime/result.h"

namespace ferry::remoting::body {

struct GroupConsumeStats {
  std::string group;
  std::vector<ConsumeStats> stats;  // one per topic
  bool operator==(const GroupConsumeStats&) const = default;
};

struct ConsumeStatsList {
  std::vector<GroupConsumeStats> consume_stats_list;
  std::string broker_addr;
  std::int64_t total_diff = 0;

  // Errors (corrupt / invalid_argument) name the field's path.
  static Result<ConsumeStatsList> decode(Bytes body);
  std::vector<std::uint8_t> encode() const;
  bool operator==(const ConsumeStatsList&) const = default;
};

}  // namespace ferry::remoting::body
