// FERRY_GET_BROKER_LIVE_TABLE (10003) reply body: the NameServer's live brokers, by address, with
// how long ago each last registered (when it will expire: brokerChannelExpiredTime, 120 s, after
// that) and the HA address it gave:
//   {"brokerLiveTable":{"10.0.0.5:10911":{"ageMillis":2104,"haServerAddr":"10.0.0.5:10912"}}}
// An age, not a time: it means the same on every machine whatever its clock says.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "runtime/bytes.h"
#include "runtime/result.h"

namespace ferry::remoting::body {

struct BrokerLiveEntry {
  std::int64_t age_millis = 0;  // since its last registration, when the reply was made (>= 0)
  std::string ha_server_addr;
  bool operator==(const BrokerLiveEntry&) const = default;
};

struct BrokerLiveTable {
  std::map<std::string, BrokerLiveEntry> brokers;  // by broker address

  // Errors: Errc::corrupt for malformed JSON, Errc::invalid_argument naming the field's path (a
  // negative age is one).
  static Result<BrokerLiveTable> decode(Bytes body);
  std::vector<std::uint8_t> encode() const;
  bool operator==(const BrokerLiveTable&) const = default;
};

}  // namespace ferry::remoting::body
