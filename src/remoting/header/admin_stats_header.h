// Request headers of the broker's statistics and connection requests (RocketMQ 4.9):
//   GET_TOPIC_STATS_INFO (202)          GetTopicStatsInfoRequestHeader {topic}
//   GET_CONSUMER_CONNECTION_LIST (203)  GetConsumerConnectionListRequestHeader {consumerGroup}
//   GET_PRODUCER_CONNECTION_LIST (204)  GetProducerConnectionListRequestHeader {producerGroup}
//   GET_CONSUME_STATS (208)             GetConsumeStatsRequestHeader {consumerGroup, topic?}
//   QUERY_TOPIC_CONSUME_BY_WHO (300)    QueryTopicConsumeByWhoRequestHeader {topic}
//   VIEW_BROKER_STATS_DATA (315)        ViewBrokerStatsDataRequestHeader {statsName, statsKey}
//   GET_BROKER_CONSUME_STATS (317)      GetConsumeStatsInBrokerHeader {isOrder}
// The replies carry no header; their bodies are remoting/body/admin_stats.h, connection.h,
// broker_stats_data.h and group_list.h.
#pragma once

#include <optional>
#include <string>
#include <string_view>

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

struct QueryTopicConsumeByWhoRequestHeader {
  std::string topic;

  static constexpr auto fields() {
    using H = QueryTopicConsumeByWhoRequestHeader;
    return header_table("QueryTopicConsumeByWhoRequestHeader", required("topic", &H::topic));
  }
  static Result<QueryTopicConsumeByWhoRequestHeader> from_fields(const ExtFields& f) { return fields().decode(f); }
  ExtFields to_fields() const { return fields().encode(*this); }
};

// The statsName values of VIEW_BROKER_STATS_DATA Ferry counts (RocketMQ's BrokerStatsManager
// names; the key of each is given beside it).
namespace stats_name {
inline constexpr std::string_view kTopicPutNums = "TOPIC_PUT_NUMS";  // key: topic
inline constexpr std::string_view kTopicPutSize = "TOPIC_PUT_SIZE";  // key: topic
inline constexpr std::string_view kGroupGetNums = "GROUP_GET_NUMS";  // key: "topic@group"
inline constexpr std::string_view kGroupGetSize = "GROUP_GET_SIZE";  // key: "topic@group"
}  // namespace stats_name

struct ViewBrokerStatsDataRequestHeader {
  std::string stats_name;
  std::string stats_key;

  static constexpr auto fields() {
    using H = ViewBrokerStatsDataRequestHeader;
    return header_table("ViewBrokerStatsDataRequestHeader", required("statsName", &H::stats_name),
                        required("statsKey", &H::stats_key));
  }
  static Result<ViewBrokerStatsDataRequestHeader> from_fields(const ExtFields& f) { return fields().decode(f); }
  ExtFields to_fields() const { return fields().encode(*this); }
};

struct GetConsumeStatsInBrokerHeader {
  bool is_order = false;  // only topics configured as order topics

  static constexpr auto fields() {
    using H = GetConsumeStatsInBrokerHeader;
    return header_table("GetConsumeStatsInBrokerHeader", required("isOrder", &H::is_order));
  }
  static Result<GetConsumeStatsInBrokerHeader> from_fields(const ExtFields& f) { return fields().decode(f); }
  ExtFields to_fields() const { return fields().encode(*this); }
};

}  // namespace ferry::remoting
