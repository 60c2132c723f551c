// VIEW_BROKER_STATS_DATA (315) reply body, RocketMQ 4.9's BrokerStatsData: one stats item's
// figures over the last minute, hour and day (fields in fastjson's alphabetical order):
//   {"statsDay":{"avgpt":1.0,"sum":12,"tps":0.5},"statsHour":{...},"statsMinute":{...}}
// sum: messages (…_NUMS) or bytes (…_SIZE) in the window; tps: sum per second; avgpt: sum per
// request counted.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "remoting/body/body_json.h"
#include "runtime/bytes.h"
#include "runtime/result.h"

namespace ferry::remoting::body {

struct BrokerStatsItem {
  std::int64_t sum = 0;
  double tps = 0;
  double avgpt = 0;

  static BrokerStatsItem read(const rapidjson::Value& v, std::string path, json::JsonErrors& e);
  void write(json::Writer& w) const;
  bool operator==(const BrokerStatsItem&) const = default;
};

struct BrokerStatsData {
  BrokerStatsItem stats_minute;
  BrokerStatsItem stats_hour;
  BrokerStatsItem stats_day;

  // Errors (corrupt / invalid_argument) name the field's path; a missing window is an error.
  static Result<BrokerStatsData> decode(Bytes body);
  std::vector<std::uint8_t> encode() const;
  bool operator==(const BrokerStatsData&) const = default;
};

}  // namespace ferry::remoting::body
