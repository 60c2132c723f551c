// Headers of the requests a broker sends its clients and the admin requests that make it do so
// (docs/client.md, "Broker-to-client requests"), with RocketMQ 4.9's extFields names:
//   INVOKE_BROKER_TO_RESET_OFFSET (222, admin → broker) and RESET_CONSUMER_CLIENT_OFFSET (220,
//     broker → client, oneway): ResetOffsetRequestHeader;
//   INVOKE_BROKER_TO_GET_CONSUMER_STATUS (223, admin → broker) and
//     GET_CONSUMER_STATUS_FROM_CLIENT (221, broker → client): GetConsumerStatusRequestHeader;
//   GET_CONSUMER_RUNNING_INFO (307, admin → broker → client): GetConsumerRunningInfoRequestHeader;
//   CONSUME_MESSAGE_DIRECTLY (309, admin → broker → client):
//     ConsumeMessageDirectlyResultRequestHeader (RocketMQ's name for the request's header).
// Each struct names its extFields once, in fields() (remoting/header/field_codec.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "remoting/ext_fields.h"
#include "remoting/header/field_codec.h"
#include "runtime/result.h"

namespace ferry::remoting {

// The reset point: ms since the epoch, or kResetToMax (-1: each queue's max offset, "now").
inline constexpr std::int64_t kResetToMax = -1;

struct ResetOffsetRequestHeader {
  std::string topic;
  std::string group;
  std::int64_t timestamp = kResetToMax;
  // true: set the offsets even forward; false: a queue whose offset is before the time's keeps it.
  bool is_force = true;

  static constexpr auto fields() {
    using H = ResetOffsetRequestHeader;
    return header_table("ResetOffsetRequestHeader",
                        required("topic", &H::topic),
                        required("group", &H::group),
                        required("timestamp", &H::timestamp),
                        required("isForce", &H::is_force));
  }
  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<ResetOffsetRequestHeader> from_fields(const ExtFields& f) { return fields().decode(f); }
  ExtFields to_fields() const { return fields().encode(*this); }
  bool operator==(const ResetOffsetRequestHeader&) const = default;
};

struct GetConsumerStatusRequestHeader {
  std::string topic;
  std::string group;
  // 223 only: ask just the client with this clientId (RocketMQ's field name); absent: every client.
  std::optional<std::string> client_addr;

  static constexpr auto fields() {
    using H = GetConsumerStatusRequestHeader;
    return header_table("GetConsumerStatusRequestHeader",
                        required("topic", &H::topic),
                        required("group", &H::group),
                        optional("clientAddr", &H::client_addr));
  }
  static Result<GetConsumerStatusRequestHeader> from_fields(const ExtFields& f) { return fields().decode(f); }
  ExtFields to_fields() const { return fields().encode(*this); }
  bool operator==(const GetConsumerStatusRequestHeader&) const = default;
};

struct GetConsumerRunningInfoRequestHeader {
  std::string consumer_group;
  std::string client_id;
  bool jstack_enable = false;  // Java's thread dump; Ferry's clients have none to give

  static constexpr auto fields() {
    using H = GetConsumerRunningInfoRequestHeader;
    return header_table("GetConsumerRunningInfoRequestHeader",
                        required("consumerGroup", &H::consumer_group),
                        required("clientId", &H::client_id),
                        optional("jstackEnable", &H::jstack_enable));
  }
  static Result<GetConsumerRunningInfoRequestHeader> from_fields(const ExtFields& f) { return fields().decode(f); }
  ExtFields to_fields() const { return fields().encode(*this); }
  bool operator==(const GetConsumerRunningInfoRequestHeader&) const = default;
};

struct ConsumeMessageDirectlyResultRequestHeader {
  std::string consumer_group;
  std::optional<std::string> client_id;
  std::optional<std::string> msg_id;       // the offset msgId (32 hex) of the stored message
  std::optional<std::string> broker_name;  // added by the broker that relays the request

  static constexpr auto fields() {
    using H = ConsumeMessageDirectlyResultRequestHeader;
    return header_table("ConsumeMessageDirectlyResultRequestHeader",
                        required("consumerGroup", &H::consumer_group),
                        optional("clientId", &H::client_id),
                        optional("msgId", &H::msg_id),
                        optional("brokerName", &H::broker_name));
  }
  static Result<ConsumeMessageDirectlyResultRequestHeader> from_fields(const ExtFields& f) {
    return fields().decode(f);
  }
  ExtFields to_fields() const { return fields().encode(*this); }
  bool operator==(const ConsumeMessageDirectlyResultRequestHeader&) const = default;
};

}  // namespace ferry::remoting
