// Per-queue offset look-ups: GET_MAX_OFFSET (30), GET_MIN_OFFSET (31),
// SEARCH_OFFSET_BY_TIMESTAMP (29) and GET_EARLIEST_MSG_STORETIME (32).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "remoting/ext_fields.h"
#include "runtime/result.h"

namespace ferry::remoting {

struct GetMaxOffsetRequestHeader {
  std::string topic;
  std::int32_t queue_id = 0;

  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<GetMaxOffsetRequestHeader> from_fields(const ExtFields& f);
  ExtFields to_fields() const;

  bool operator==(const GetMaxOffsetRequestHeader&) const = default;
};

struct GetMaxOffsetResponseHeader {
  std::int64_t offset = 0;

  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<GetMaxOffsetResponseHeader> from_fields(const ExtFields& f);
  ExtFields to_fields() const;

  bool operator==(const GetMaxOffsetResponseHeader&) const = default;
};

struct GetMinOffsetRequestHeader {
  std::string topic;
  std::int32_t queue_id = 0;

  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<GetMinOffsetRequestHeader> from_fields(const ExtFields& f);
  ExtFields to_fields() const;

  bool operator==(const GetMinOffsetRequestHeader&) const = default;
};

struct GetMinOffsetResponseHeader {
  std::int64_t offset = 0;

  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<GetMinOffsetResponseHeader> from_fields(const ExtFields& f);
  ExtFields to_fields() const;

  bool operator==(const GetMinOffsetResponseHeader&) const = default;
};

struct SearchOffsetRequestHeader {
  std::string topic;
  std::int32_t queue_id = 0;
  std::int64_t timestamp = 0;  // ms since the epoch

  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<SearchOffsetRequestHeader> from_fields(const ExtFields& f);
  ExtFields to_fields() const;

  bool operator==(const SearchOffsetRequestHeader&) const = default;
};

struct SearchOffsetResponseHeader {
  std::int64_t offset = 0;

  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<SearchOffsetResponseHeader> from_fields(const ExtFields& f);
  ExtFields to_fields() const;

  bool operator==(const SearchOffsetResponseHeader&) const = default;
};

struct GetEarliestMsgStoretimeRequestHeader {
  std::string topic;
  std::int32_t queue_id = 0;

  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<GetEarliestMsgStoretimeRequestHeader> from_fields(const ExtFields& f);
  ExtFields to_fields() const;

  bool operator==(const GetEarliestMsgStoretimeRequestHeader&) const = default;
};

struct GetEarliestMsgStoretimeResponseHeader {
  std::int64_t timestamp = 0;  // store time, ms since the epoch

  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<GetEarliestMsgStoretimeResponseHeader> from_fields(const ExtFields& f);
  ExtFields to_fields() const;

  bool operator==(const GetEarliestMsgStoretimeResponseHeader&) const = default;
};

}  // namespace ferry::remoting
