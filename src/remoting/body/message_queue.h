// MessageQueue as it travels in JSON bodies: {"topic":..,"brokerName":..,"queueId":..}.
#pragma once

#include <rapidjson/document.h>

#include <compare>
#include <cstdint>
#include <string>

#include "remoting/json/json_reader.h"
#include "remoting/json/json_writer.h"

namespace ferry::remoting::body {

struct MessageQueue {
  std::string topic;
  std::string broker_name;
  std::int32_t queue_id = 0;

  // Records an error naming `path` in `errors` when a field is missing or mistyped.
  static MessageQueue read(const rapidjson::Value& v, std::string path, json::JsonErrors& errors);
  void write(json::Writer& w) const;

  // Ordered by topic, broker name, queue id (RocketMQ's MessageQueue.compareTo).
  auto operator<=>(const MessageQueue&) const = default;
};

}  // namespace ferry::remoting::body
