// Headers of client bookkeeping requests: UNREGISTER_CLIENT (35), CONSUMER_SEND_MSG_BACK (36),
// GET_CONSUMER_LIST_BY_GROUP (38) and NOTIFY_CONSUMER_IDS_CHANGED (40, broker → client, oneway).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "remoting/ext_fields.h"
#include "runtime/result.h"

namespace ferry::remoting {

struct UnregisterClientRequestHeader {
  std::string client_id;
  std::optional<std::string> producer_group;
  std::optional<std::string> consumer_group;

  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<UnregisterClientRequestHeader> from_fields(const ExtFields& f);
  ExtFields to_fields() const;

  bool operator==(const UnregisterClientRequestHeader&) const = default;
};

struct ConsumerSendMsgBackRequestHeader {
  // commit-log offset of the consumed message
  std::int64_t offset = 0;
  std::string group;
  // 0: the broker picks (3 + reconsumeTimes); < 0: straight to the DLQ
  std::int32_t delay_level = 0;
  std::optional<std::string> origin_msg_id;
  std::optional<std::string> origin_topic;
  bool unit_mode = false;
  std::optional<std::int32_t> max_reconsume_times;

  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<ConsumerSendMsgBackRequestHeader> from_fields(const ExtFields& f);
  ExtFields to_fields() const;

  bool operator==(const ConsumerSendMsgBackRequestHeader&) const = default;
};

struct GetConsumerListByGroupRequestHeader {
  std::string consumer_group;

  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<GetConsumerListByGroupRequestHeader> from_fields(const ExtFields& f);
  ExtFields to_fields() const;

  bool operator==(const GetConsumerListByGroupRequestHeader&) const = default;
};

struct NotifyConsumerIdsChangedRequestHeader {
  std::string consumer_group;

  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<NotifyConsumerIdsChangedRequestHeader> from_fields(const ExtFields& f);
  ExtFields to_fields() const;

  bool operator==(const NotifyConsumerIdsChangedRequestHeader&) const = default;
};

}  // namespace ferry::remoting
