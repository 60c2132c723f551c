// QUERY_MESSAGE (12) request/reply headers and VIEW_MESSAGE_BY_ID (33) request header.
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

struct QueryMessageRequestHeader {
  std::string topic;
  std::string key;  // a KEYS entry, or a UNIQ_KEY
  std::int32_t max_num = 0;
  std::int64_t begin_timestamp = 0;
  std::int64_t end_timestamp = 0;
  // extField "_UNIQUE_KEY_QUERY": a msgId look-up (written only when true, as Java clients do)
  bool unique_key_query = false;

  static constexpr auto fields() {
    using H = QueryMessageRequestHeader;
    return header_table("QueryMessageRequestHeader",
                        required("topic", &H::topic),
                        required("key", &H::key),
                        required("maxNum", &H::max_num),
                        required("beginTimestamp", &H::begin_timestamp),
                        required("endTimestamp", &H::end_timestamp),
                        only_if_true("_UNIQUE_KEY_QUERY", &H::unique_key_query));
  }
  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<QueryMessageRequestHeader> from_fields(const ExtFields& f) {
    return fields().decode(f);
  }
  ExtFields to_fields() const { return fields().encode(*this); }

  bool operator==(const QueryMessageRequestHeader&) const = default;
};

struct QueryMessageResponseHeader {
  std::int64_t index_last_update_timestamp = 0;
  PhysicalOffset index_last_update_phyoffset;

  static constexpr auto fields() {
    using H = QueryMessageResponseHeader;
    return header_table("QueryMessageResponseHeader",
                        required("indexLastUpdateTimestamp", &H::index_last_update_timestamp),
                        required("indexLastUpdatePhyoffset", &H::index_last_update_phyoffset));
  }
  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<QueryMessageResponseHeader> from_fields(const ExtFields& f) {
    return fields().decode(f);
  }
  ExtFields to_fields() const { return fields().encode(*this); }

  bool operator==(const QueryMessageResponseHeader&) const = default;
};

struct ViewMessageRequestHeader {
  PhysicalOffset offset;  // commit-log offset of the record

  static constexpr auto fields() {
    using H = ViewMessageRequestHeader;
    return header_table("ViewMessageRequestHeader", required("offset", &H::offset));
  }
  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<ViewMessageRequestHeader> from_fields(const ExtFields& f) {
    return fields().decode(f);
  }
  ExtFields to_fields() const { return fields().encode(*this); }

  bool operator==(const ViewMessageRequestHeader&) const = default;
};

}  // namespace ferry::remoting
