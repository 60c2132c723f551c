// QUERY_MESSAGE (12) request/reply headers and VIEW_MESSAGE_BY_ID (33) request header.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "remoting/ext_fields.h"
#include "runtime/result.h"

namespace ferry::remoting {

struct QueryMessageRequestHeader {
  std::string topic;
  std::string key;  // a KEYS entry, or a UNIQ_KEY
  std::int32_t max_num = 0;
  std::int64_t begin_timestamp = 0;
  std::int64_t end_timestamp = 0;
  // extField "_UNIQUE_KEY_QUERY": a msgId look-up
  bool unique_key_query = false;

  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<QueryMessageRequestHeader> from_fields(const ExtFields& f);
  ExtFields to_fields() const;

  bool operator==(const QueryMessageRequestHeader&) const = default;
};

struct QueryMessageResponseHeader {
  std::int64_t index_last_update_timestamp = 0;
  std::int64_t index_last_update_phyoffset = 0;

  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<QueryMessageResponseHeader> from_fields(const ExtFields& f);
  ExtFields to_fields() const;

  bool operator==(const QueryMessageResponseHeader&) const = default;
};

struct ViewMessageRequestHeader {
  std::int64_t offset = 0;  // commit-log offset of the record

  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<ViewMessageRequestHeader> from_fields(const ExtFields& f);
  ExtFields to_fields() const;

  bool operator==(const ViewMessageRequestHeader&) const = default;
};

}  // namespace ferry::remoting
