// REGISTER_BROKER (103) request body (uncompressed form):
//   {"topicConfigSerializeWrapper":{
//      "topicConfigTable":{"T":{"topicName":"T",...}},
//      "dataVersion":{"counter":3,"timestamp":1700000000000}},
//    "filterServerList":[]}
// The reply carries RegisterBrokerResponseHeader (header/broker_registration_header.h).
// A body sent with compressed=true (RocketMQ's deflate format) is not supported.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "remoting/body/topic_config.h"
#include "runtime/bytes.h"
#include "runtime/result.h"

namespace ferry::remoting::body {

struct DataVersion {
  std::int64_t counter = 0;
  std::int64_t timestamp = 0;  // ms since the epoch, the broker's clock
  bool operator==(const DataVersion&) const = default;
};

struct TopicConfigSerializeWrapper {
  std::map<std::string, TopicConfig> topic_config_table;  // by topic name
  DataVersion data_version;
  bool operator==(const TopicConfigSerializeWrapper&) const = default;
};

struct RegisterBrokerBody {
  TopicConfigSerializeWrapper topic_config_serialize_wrapper;
  std::vector<std::string> filter_server_list;

  // Errors: Errc::corrupt for malformed JSON, Errc::invalid_argument naming the field's path.
  static Result<RegisterBrokerBody> decode(Bytes body);
  std::vector<std::uint8_t> encode() const;
  bool operator==(const RegisterBrokerBody&) const = default;
};

}  // namespace ferry::remoting::body
