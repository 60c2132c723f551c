// TopicConfig as it travels in the broker registration body (and RocketMQ's topics.json):
//   {"topicName":"T","readQueueNums":4,"writeQueueNums":4,"perm":6,
//    "topicFilterType":"SINGLE_TAG","topicSysFlag":0,"order":false}
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <string>

#include "remoting/json/json_reader.h"
#include "remoting/json/json_writer.h"

namespace ferry::remoting::body {

struct TopicConfig {
  std::string topic_name;
  std::int32_t read_queue_nums = 0;
  std::int32_t write_queue_nums = 0;
  std::int32_t perm = 0;
  std::string topic_filter_type = "SINGLE_TAG";
  std::int32_t topic_sys_flag = 0;
  bool order = false;

  static TopicConfig read(const rapidjson::Value& v, std::string path, json::JsonErrors& errors);
  void write(json::Writer& w) const;
  bool operator==(const TopicConfig&) const = default;
};

}  // namespace ferry::remoting::body
