// GET_ROUTEINFO_BY_TOPIC (105) reply body:
//   {"queueDatas":[{"brokerName":"b","readQueueNums":4,"writeQueueNums":4,"perm":6,
//                   "topicSynFlag":0,"topicSysFlag":0}],
//    "brokerDatas":[{"cluster":"c","brokerName":"b","brokerAddrs":{"0":"10.0.0.1:10911"}}],
//    "filterServerTable":{}}
//
// RocketMQ 4.x names the queue's system flag "topicSynFlag" (sic), 5.x "topicSysFlag": Ferry
// writes both and reads either, so both generations of clients see it.
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "remoting/body/broker_data.h"
#include "remoting/json/json_reader.h"
#include "remoting/json/json_writer.h"
#include "runtime/bytes.h"
#include "runtime/result.h"

namespace ferry::remoting::body {

struct QueueData {
  std::string broker_name;
  std::int32_t read_queue_nums = 0;
  std::int32_t write_queue_nums = 0;
  std::int32_t perm = 0;  // 4 read, 2 write, 1 inherit
  std::int32_t topic_sys_flag = 0;

  static QueueData read(const rapidjson::Value& v, std::string path, json::JsonErrors& errors);
  void write(json::Writer& w) const;
  bool operator==(const QueueData&) const = default;
};

struct TopicRouteData {
  std::optional<std::string> order_topic_conf;  // written only when present
  std::vector<QueueData> queue_datas;
  std::vector<BrokerData> broker_datas;
  std::map<std::string, std::vector<std::string>> filter_server_table;  // broker addr → servers

  // Errors: Errc::corrupt for malformed JSON, Errc::invalid_argument naming the field's path.
  static Result<TopicRouteData> decode(Bytes body);
  std::vector<std::uint8_t> encode() const;
  bool operator==(const TopicRouteData&) const = default;
};

}  // namespace ferry::remoting::body
