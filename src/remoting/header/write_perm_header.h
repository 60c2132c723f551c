// NameServer requests that take a broker's write permission away from, or give it back to, every
// topic it serves (RocketMQ 4.9 DefaultRequestProcessor; mqadmin wipeWritePerm / addWritePerm):
//   WIPE_WRITE_PERM_OF_BROKER (205) WipeWritePermOfBrokerRequestHeader {brokerName}
//       → reply header WipeWritePermOfBrokerResponseHeader {wipeTopicCount}
//   ADD_WRITE_PERM_OF_BROKER (327)  AddWritePermOfBrokerRequestHeader {brokerName}
//       → reply header AddWritePermOfBrokerResponseHeader {addTopicCount}
// The count is how many topics have queue data of that broker (0 for an unknown broker).
#pragma once

#include <cstdint>
#include <string>

#include "remoting/ext_fields.h"
#include "remoting/header/field_codec.h"
#include "runtime/result.h"

namespace ferry::remoting {

struct WritePermOfBrokerRequestHeader {
  std::string broker_name;

  static constexpr auto fields() {
    using H = WritePermOfBrokerRequestHeader;
    return header_table("WritePermOfBrokerRequestHeader", required("brokerName", &H::broker_name));
  }
  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<WritePermOfBrokerRequestHeader> from_fields(const ExtFields& f) { return fields().decode(f); }
  ExtFields to_fields() const { return fields().encode(*this); }
};

struct WipeWritePermOfBrokerResponseHeader {
  std::int32_t wipe_topic_count = 0;

  static constexpr auto fields() {
    using H = WipeWritePermOfBrokerResponseHeader;
    return header_table("WipeWritePermOfBrokerResponseHeader", required("wipeTopicCount", &H::wipe_topic_count));
  }
  static Result<WipeWritePermOfBrokerResponseHeader> from_fields(const ExtFields& f) { return fields().decode(f); }
  ExtFields to_fields() const { return fields().encode(*this); }
};

struct AddWritePermOfBrokerResponseHeader {
  std::int32_t add_topic_count = 0;

  static constexpr auto fields() {
    using H = AddWritePermOfBrokerResponseHeader;
    return header_table("AddWritePermOfBrokerResponseHeader", required("addTopicCount", &H::add_topic_count));
  }
  static Result<AddWritePermOfBrokerResponseHeader> from_fields(const ExtFields& f) { return fields().decode(f); }
  ExtFields to_fields() const { return fields().encode(*this); }
};

}  // namespace ferry::remoting
