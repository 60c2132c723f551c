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
#include "remoting/json/json_reader.h"
#include "remoting/json/json_writer.h"
#include "runtime/bytes.h"
#include "runtime/result.h"

namespace ferry::remoting::body {

struct DataVersion {
  std::int64_t counter = 0;
  std::int64_t timestamp = 0;  // ms since the epoch, the broker's clock
  // RocketMQ 5: in controller mode the master epoch of the broker's last role change; a
  // NameServer ignores a registration for an id whose holder has a larger one (a stale
  // registration of an old master). Written only when not 0 (RocketMQ 4's form otherwise).
  std::int64_t state_version = 0;
  bool operator==(const DataVersion&) const = default;

  // {"counter":N,"stateVersion":E,"timestamp":ms} (stateVersion only when not 0), and back.
  void write(json::Writer& w) const;
  static DataVersion read(json::ObjectReader& r);
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
