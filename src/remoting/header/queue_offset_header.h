// Per-queue offset look-ups: GET_MAX_OFFSET (30), GET_MIN_OFFSET (31),
// SEARCH_OFFSET_BY_TIMESTAMP (29) and GET_EARLIEST_MSG_STORETIME (32).
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

struct GetMaxOffsetRequestHeader {
  std::string topic;
  QueueId queue_id;

  static constexpr auto fields() {
    using H = GetMaxOffsetRequestHeader;
    return header_table("GetMaxOffsetRequestHeader",
                        required("topic", &H::topic),
                        required("queueId", &H::queue_id));
  }
  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<GetMaxOffsetRequestHeader> from_fields(const ExtFields& f) {
    return fields().decode(f);
  }
  ExtFields to_fields() const { return fields().encode(*this); }

  bool operator==(const GetMaxOffsetRequestHeader&) const = default;
};

struct GetMaxOffsetResponseHeader {
  QueueOffset offset;

  static constexpr auto fields() {
    using H = GetMaxOffsetResponseHeader;
    return header_table("GetMaxOffsetResponseHeader", required("offset", &H::offset));
  }
  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<GetMaxOffsetResponseHeader> from_fields(const ExtFields& f) {
    return fields().decode(f);
  }
  ExtFields to_fields() const { return fields().encode(*this); }

  bool operator==(const GetMaxOffsetResponseHeader&) const = default;
};

struct GetMinOffsetRequestHeader {
  std::string topic;
  QueueId queue_id;

  static constexpr auto fields() {
    using H = GetMinOffsetRequestHeader;
    return header_table("GetMinOffsetRequestHeader",
                        required("topic", &H::topic),
                        required("queueId", &H::queue_id));
  }
  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<GetMinOffsetRequestHeader> from_fields(const ExtFields& f) {
    return fields().decode(f);
  }
  ExtFields to_fields() const { return fields().encode(*this); }

  bool operator==(const GetMinOffsetRequestHeader&) const = default;
};

struct GetMinOffsetResponseHeader {
  QueueOffset offset;

  static constexpr auto fields() {
    using H = GetMinOffsetResponseHeader;
    return header_table("GetMinOffsetResponseHeader", required("offset", &H::offset));
  }
  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<GetMinOffsetResponseHeader> from_fields(const ExtFields& f) {
    return fields().decode(f);
  }
  ExtFields to_fields() const { return fields().encode(*this); }

  bool operator==(const GetMinOffsetResponseHeader&) const = default;
};

struct SearchOffsetRequestHeader {
  std::string topic;
  QueueId queue_id;
  std::int64_t timestamp = 0;  // ms since the epoch

  static constexpr auto fields() {
    using H = SearchOffsetRequestHeader;
    return header_table("SearchOffsetRequestHeader",
                        required("topic", &H::topic),
                        required("queueId", &H::queue_id),
                        required("timestamp", &H::timestamp));
  }
  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<SearchOffsetRequestHeader> from_fields(const ExtFields& f) {
    return fields().decode(f);
  }
  ExtFields to_fields() const { return fields().encode(*this); }

  bool operator==(const SearchOffsetRequestHeader&) const = default;
};

struct SearchOffsetResponseHeader {
  QueueOffset offset;

  static constexpr auto fields() {
    using H = SearchOffsetResponseHeader;
    return header_table("SearchOffsetResponseHeader", required("offset", &H::offset));
  }
  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<SearchOffsetResponseHeader> from_fields(const ExtFields& f) {
    return fields().decode(f);
  }
  ExtFields to_fields() const { return fields().encode(*this); }

  bool operator==(const SearchOffsetResponseHeader&) const = default;
};

struct GetEarliestMsgStoretimeRequestHeader {
  std::string topic;
  QueueId queue_id;

  static constexpr auto fields() {
    using H = GetEarliestMsgStoretimeRequestHeader;
    return header_table("GetEarliestMsgStoretimeRequestHeader",
                        required("topic", &H::topic),
                        required("queueId", &H::queue_id));
  }
  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<GetEarliestMsgStoretimeRequestHeader> from_fields(const ExtFields& f) {
    return fields().decode(f);
  }
  ExtFields to_fields() const { return fields().encode(*this); }

  bool operator==(const GetEarliestMsgStoretimeRequestHeader&) const = default;
};

struct GetEarliestMsgStoretimeResponseHeader {
  std::int64_t timestamp = 0;  // store time, ms since the epoch

  static constexpr auto fields() {
    using H = GetEarliestMsgStoretimeResponseHeader;
    return header_table("GetEarliestMsgStoretimeResponseHeader",
                        required("timestamp", &H::timestamp));
  }
  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<GetEarliestMsgStoretimeResponseHeader> from_fields(const ExtFields& f) {
    return fields().decode(f);
  }
  ExtFields to_fields() const { return fields().encode(*this); }

  bool operator==(const GetEarliestMsgStoretimeResponseHeader&) const = default;
};

}  // namespace ferry::remoting
