// Headers of client bookkeeping requests: UNREGISTER_CLIENT (35), CONSUMER_SEND_MSG_BACK (36),
// GET_CONSUMER_LIST_BY_GROUP (38) and NOTIFY_CONSUMER_IDS_CHANGED (40, broker → client, oneway).
//
// Each struct names its extFields once, in fields(), which from_fields() and to_fields() both
// walk (remoting/header/field_codec.h says what required / optional / only_if_true mean).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "common/offsets.h"
#include "remoting/ext_fields.h"
#include "remoting/header/field_codec.h"
#include "runtime/result.h"

namespace ferry::remoting {

struct UnregisterClientRequestHeader {
  std::string client_id;
  std::optional<std::string> producer_group;
  std::optional<std::string> consumer_group;

  static constexpr auto fields() {
    using H = UnregisterClientRequestHeader;
    return header_table("UnregisterClientRequestHeader",
                        required("clientID", &H::client_id),
                        optional("producerGroup", &H::producer_group),
                        optional("consumerGroup", &H::consumer_group));
  }
  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<UnregisterClientRequestHeader> from_fields(const ExtFields& f) {
    return fields().decode(f);
  }
  ExtFields to_fields() const { return fields().encode(*this); }

  bool operator==(const UnregisterClientRequestHeader&) const = default;
};

struct ConsumerSendMsgBackRequestHeader {
  // commit-log offset of the consumed message
  PhysicalOffset offset;
  std::string group;
  // 0: the broker picks (3 + reconsumeTimes); < 0: straight to the DLQ
  std::int32_t delay_level = 0;
  std::optional<std::string> origin_msg_id;
  std::optional<std::string> origin_topic;
  bool unit_mode = false;
  std::optional<std::int32_t> max_reconsume_times;

  static constexpr auto fields() {
    using H = ConsumerSendMsgBackRequestHeader;
    return header_table("ConsumerSendMsgBackRequestHeader",
                        required("offset", &H::offset),
                        required("group", &H::group),
                        required("delayLevel", &H::delay_level),
                        optional("originMsgId", &H::origin_msg_id),
                        optional("originTopic", &H::origin_topic),
                        optional("unitMode", &H::unit_mode),
                        optional("maxReconsumeTimes", &H::max_reconsume_times));
  }
  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<ConsumerSendMsgBackRequestHeader> from_fields(const ExtFields& f) {
    return fields().decode(f);
  }
  ExtFields to_fields() const { return fields().encode(*this); }

  bool operator==(const ConsumerSendMsgBackRequestHeader&) const = default;
};

struct GetConsumerListByGroupRequestHeader {
  std::string consumer_group;

  static constexpr auto fields() {
    using H = GetConsumerListByGroupRequestHeader;
    return header_table("GetConsumerListByGroupRequestHeader",
                        required("consumerGroup", &H::consumer_group));
  }
  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<GetConsumerListByGroupRequestHeader> from_fields(const ExtFields& f) {
    return fields().decode(f);
  }
  ExtFields to_fields() const { return fields().encode(*this); }

  bool operator==(const GetConsumerListByGroupRequestHeader&) const = default;
};

struct NotifyConsumerIdsChangedRequestHeader {
  std::string consumer_group;

  static constexpr auto fields() {
    using H = NotifyConsumerIdsChangedRequestHeader;
    return header_table("NotifyConsumerIdsChangedRequestHeader",
                        required("consumerGroup", &H::consumer_group));
  }
  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<NotifyConsumerIdsChangedRequestHeader> from_fields(const ExtFields& f) {
    return fields().decode(f);
  }
  ExtFields to_fields() const { return fields().encode(*this); }

  bool operator==(const NotifyConsumerIdsChangedRequestHeader&) const = default;
};

}  // namespace ferry::remoting
