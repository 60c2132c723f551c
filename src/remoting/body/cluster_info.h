// GET_BROKER_CLUSTER_INFO (106) reply body:
//   {"brokerAddrTable":{"b":{"cluster":"c","brokerName":"b","brokerAddrs":{"0":"..."}}},
//    "clusterAddrTable":{"c":["b"]}}
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "remoting/body/broker_data.h"
#include "runtime/bytes.h"
#include "runtime/result.h"

namespace ferry::remoting::body {

struct ClusterInfo {
  std::map<std::string, BrokerData> broker_addr_table;                // by broker name
  std::map<std::string, std::vector<std::string>> cluster_addr_table;  // cluster → broker names

  // Errors: Errc::corrupt for malformed JSON, Errc::invalid_argument naming the field's path.
  static Result<ClusterInfo> decode(Bytes body);
  std::vector<std::uint8_t> encode() const;
  bool operator==(const ClusterInfo&) const = default;
};

}  // namespace ferry::remoting::body
