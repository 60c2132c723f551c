// QUERY_TOPIC_CONSUME_BY_WHO (300) reply body, RocketMQ's GroupList: the consumer groups of a
// topic, {"groupList":["G1","G2"]} (a HashSet in Java: any order; Ferry writes them sorted).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/bytes.h"
#include "runtime/result.h"

namespace ferry::remoting::body {

struct GroupList {
  std::vector<std::string> group_list;

  // Errors: Errc::corrupt for malformed JSON, Errc::invalid_argument naming the field's path.
  static Result<GroupList> decode(Bytes body);
  std::vector<std::uint8_t> encode() const;
  bool operator==(const GroupList&) const = default;
};

}  // namespace ferry::remoting::body
