// QUERY_CONSUMER_OFFSET (14) and UPDATE_CONSUMER_OFFSET (15) headers.
//
// Each struct names its extFields once, in fields(), which from_fields() and to_fields() both
// walk (remoting/header/field_codec.h says what required / optional / only_if_true mean).
#pragma once

#include <cstdint>
#include <string>

#include "common/offsets.h"
#include "remoting/ext_fields.h"
#include "remoting/header/field_codec.h"
#include "runtime/result.h"

namespace ferry::remoting {

struct QueryConsumerOffsetRequestHeader {
  std::string consumer_group;
  std::string topic;
  QueueId queue_id;

  static constexpr auto fields() {
    using H = QueryConsumerOffsetRequestHeader;
    return header_table("QueryConsumerOffsetRequestHeader",
                        required("consumerGroup", &H::consumer_group),
                        required("topic", &H::topic),
                        required("queueId", &H::queue_id));
  }
  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<QueryConsumerOffsetRequestHeader> from_fields(const ExtFields& f) {
    return fields().decode(f);
  }
  ExtFields to_fields() const { return fields().encode(*this); }

  bool operator==(const QueryConsumerOffsetRequestHeader&) const = default;
};

struct QueryConsumerOffsetResponseHeader {
  QueueOffset offset;  // the committed consumer offset

  static constexpr auto fields() {
    using H = QueryConsumerOffsetResponseHeader;
    return header_table("QueryConsumerOffsetResponseHeader", required("offset", &H::offset));
  }
  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<QueryConsumerOffsetResponseHeader> from_fields(const ExtFields& f) {
    return fields().decode(f);
  }
  ExtFields to_fields() const { return fields().encode(*this); }

  bool operator==(const QueryConsumerOffsetResponseHeader&) const = default;
};

struct UpdateConsumerOffsetRequestHeader {
  std::string consumer_group;
  std::string topic;
  QueueId queue_id;
  QueueOffset commit_offset;

  static constexpr auto fields() {
    using H = UpdateConsumerOffsetRequestHeader;
    return header_table("UpdateConsumerOffsetRequestHeader",
                        required("consumerGroup", &H::consumer_group),
                        required("topic", &H::topic),
                        required("queueId", &H::queue_id),
                        required("commitOffset", &H::commit_offset));
  }
  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<UpdateConsumerOffsetRequestHeader> from_fields(const ExtFields& f) {
    return fields().decode(f);
  }
  ExtFields to_fields() const { return fields().encode(*this); }

  bool operator==(const UpdateConsumerOffsetRequestHeader&) const = default;
};

}  // namespace ferry::remoting
