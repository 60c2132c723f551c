// FERRY_GET_EPOCH_ACKS (10005) reply body: a broker's last epoch (its epoch file's last entry; 0
// outside controller mode) and how many sends it acknowledged SEND_OK in each master epoch since
// it started:
//   {"lastEpoch":3,"ackedByEpoch":{"1":1200,"3":41}}
// Two brokers of one group with acknowledgements in the same epoch mean two masters wrote in it.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "runtime/bytes.h"
#include "runtime/result.h"

namespace ferry::remoting::body {

struct EpochAcks {
  std::int32_t last_epoch = 0;
  std::map<std::int32_t, std::int64_t> acked_by_epoch;  // master epoch -> SEND_OK count (>= 0)

  // Errors: Errc::corrupt for malformed JSON, Errc::invalid_argument naming the field's path (an
  // epoch key that is not a number, a negative count).
  static Result<EpochAcks> decode(Bytes body);
  std::vector<std::uint8_t> encode() const;
  bool operator==(const EpochAcks&) const = default;
};

}  // namespace ferry::remoting::body
