// BrokerData: one broker group's addresses, in route and cluster bodies:
//   {"cluster":"c","brokerName":"b","brokerAddrs":{"0":"10.0.0.1:10911","1":"10.0.0.2:10911"}}
// brokerAddrs is keyed by brokerId (0 = master). Java peers write the keys unquoted
// ({0:"..."}); both forms are read, quoted keys are written.
#pragma once

#include <rapidjson/document.h>

#include <cstdint>
#include <map>
#include <string>

#include "remoting/json/json_reader.h"
#include "remoting/json/json_writer.h"

namespace ferry::remoting::body {

struct BrokerData {
  std::string cluster;
  std::string broker_name;
  std::map<std::int64_t, std::string> broker_addrs;  // brokerId → "ip:port"

  static BrokerData read(const rapidjson::Value& v, std::string path, json::JsonErrors& errors);
  void write(json::Writer& w) const;

  bool operator==(const BrokerData&) const = default;
};

}  // namespace ferry::remoting::body
