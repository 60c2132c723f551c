// Request headers of the broker's statistics and connection requests (RocketMQ 4.9):
//   GET_TOPIC_STATS_INFO (202)          GetTopicStatsInfoRequestHeader {topic}
//   GET_CONSUMER_CONNECTION_LIST (203)  GetConsumerConnectionListRequestHeader {consumerGroup}
//   GET_PRODUCER_CONNECTION_LIST (204)  GetProducerConnectionListRequestHeader {producerGroup}
//   GET_CONSUME_STATS (208)             GetConsumeStatsRequestHeader {consumerGroup, topic?}
// The replies carry no header; their bodies are remoting/body/admin_stats.h and connection.h.
#pragma once

#include <optional>
#include <string>

#include "remoting/ext_fields.h"
#include "remoting/header/field_codec.h"
#include "runtime/result.h"

namespace ferry::remoting {

struct GetTopicStatsInfoRequestHeader {
  std::string topic;

  static constexpr auto fields() {
    using H = GetTopicStatsInfoRequestHeader;
    return header_table("GetTopicStatsInfoRequestHeader", required("topic", &H::topic));
  }
  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<GetTopicStatsInfoRequestHeader> from_fields(const ExtFields& f) { return fields().decode(f); }
  ExtFields to_fields() const { return fields().encode(*this); }
};

struct GetConsumerConnectionListRequestHeader {
  std::string consumer_group;

  static constexpr auto fields() {
    using H = GetConsumerConnectionListRequestHeader;
    return header_table("GetConsumerConnectionListRequestHeader", required("consumerGroup", &H::consumer_group));
  }
  static Result<GetConsumerConnectionListRequestHeader> from_fields(const ExtFields& f) { return fields().decode(f); }
  ExtFields to_fields() const { return fields().encode(*this); }
};

struct GetProducerConnectionListRequestHeader {
  std::string producer_group;

  static constexpr auto fields() {
    using H = GetProducerConnectionListRequestHeader;
    return header_table("GetProducerConnectionListRequestHeader", required("producerGroup", &H::producer_group));
  }
  static Result<GetProducerConnectionListRequestHeader> from_fields(const ExtFields& f) { return fields().decode(f); }
  ExtFields to_fields() const { return fields().encode(*this); }
};

struct GetConsumeStatsRequestHeader {
  std::string consumer_group;
  std::optional<std::string> topic;  // absent or blank: every topic the group has offsets on

  static constexpr auto fields() {
    using H = GetConsumeStatsRequestHeader;
    return header_table("GetConsumeStatsRequestHeader", required("consumerGroup", &H::consumer_group),
                        optional("topic", &H::topic));
  }
  static Result<GetConsumeStatsRequestHeader> from_fields(const ExtFields& f) { return fields().decode(f); }
  ExtFields to_fields() const { return fields().encode(*this); }
};

}  // namespace ferry::remoting
