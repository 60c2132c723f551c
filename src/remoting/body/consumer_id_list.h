// GET_CONSUMER_LIST_BY_GROUP (38) reply body: {"consumerIdList":["192.0.2.2@5831", ...]}
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/bytes.h"
#include "runtime/result.h"

namespace ferry::remoting::body {

struct ConsumerIdList {
  std::vector<std::string> consumer_id_list;

  // Errors: Errc::corrupt for malformed JSON, Errc::invalid_argument naming the field's path.
  static Result<ConsumerIdList> decode(Bytes body);
  std::vector<std::uint8_t> encode() const;
  bool operator==(const ConsumerIdList&) const = default;
};

}  // namespace ferry::remoting::body
