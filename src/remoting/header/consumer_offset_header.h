// QUERY_CONSUMER_OFFSET (14) and UPDATE_CONSUMER_OFFSET (15) headers.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "remoting/ext_fields.h"
#include "runtime/result.h"

namespace ferry::remoting {

struct QueryConsumerOffsetRequestHeader {
  std::string consumer_group;
  std::string topic;
  std::int32_t queue_id = 0;

  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<QueryConsumerOffsetRequestHeader> from_fields(const ExtFields& f);
  ExtFields to_fields() const;

  bool operator==(const QueryConsumerOffsetRequestHeader&) const = default;
};

struct QueryConsumerOffsetResponseHeader {
  std::int64_t offset = 0;

  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<QueryConsumerOffsetResponseHeader> from_fields(const ExtFields& f);
  ExtFields to_fields() const;

  bool operator==(const QueryConsumerOffsetResponseHeader&) const = default;
};

struct UpdateConsumerOffsetRequestHeader {
  std::string consumer_group;
  std::string topic;
  std::int32_t queue_id = 0;
  std::int64_t commit_offset = 0;

  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<UpdateConsumerOffsetRequestHeader> from_fields(const ExtFields& f);
  ExtFields to_fields() const;

  bool operator==(const UpdateConsumerOffsetRequestHeader&) const = default;
};

}  // namespace ferry::remoting
