// GET_ALL_TOPIC_LIST_FROM_NAMESERVER (206) reply body: {"topicList":["T1","T2"]}
// (plus "brokerAddr" in some RocketMQ replies).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/bytes.h"
#include "runtime/result.h"

namespace ferry::remoting::body {

struct TopicList {
  std::vector<std::string> topic_list;
  std::optional<std::string> broker_addr;  // written only when present

  // Errors: Errc::corrupt for malformed JSON, Errc::invalid_argument naming the field's path.
  static Result<TopicList> decode(Bytes body);
  std::vector<std::uint8_t> encode() const;
  bool operator==(const TopicList&) const = default;
};

}  // namespace ferry::remoting::body
