// SubscriptionGroupConfig: one consumer group's broker-side settings (RocketMQ's
// SubscriptionGroupConfig), as it travels in JSON (config/subscriptionGroup.json, admin bodies):
//   {"groupName":"G","consumeEnable":true,"consumeFromMinEnable":true,
//    "consumeBroadcastEnable":true,"retryQueueNums":1,"retryMaxTimes":16,"brokerId":0,
//    "whichBrokerWhenConsumeSlowly":1,"notifyConsumerIdsChangedEnable":true,
//    "consumeMessageOrderly":false}
// consumeMessageOrderly is RocketMQ 5's: the group consumes FIFO (its POP consumers through a
// proxy pop in order; docs/proxy.md). RocketMQ 4.9 neither writes nor reads it.
// Missing optional fields take these defaults; groupName is required.
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <string>

#include "remoting/json/json_reader.h"
#include "remoting/json/json_writer.h"

namespace ferry::remoting::body {

inline constexpr std::int32_t kRetryMaxTimesDefault = 16;

struct SubscriptionGroupConfig {
  std::string group_name;
  bool consume_enable = true;
  bool consume_from_min_enable = true;
  bool consume_broadcast_enable = true;
  std::int32_t retry_queue_nums = 1;
  std::int32_t retry_max_times = kRetryMaxTimesDefault;
  std::int64_t broker_id = 0;
  std::int64_t which_broker_when_consume_slowly = 1;
  bool notify_consumer_ids_changed_enable = true;
  bool consume_message_orderly = false;

  static SubscriptionGroupConfig read(const rapidjson::Value& v, std::string path,
                                      json::JsonErrors& errors);
  void write(json::Writer& w) const;
  bool operator==(const SubscriptionGroupConfig&) const = default;
};

}  // namespace ferry::remoting::body
