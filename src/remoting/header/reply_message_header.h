// PUSH_REPLY_MESSAGE_TO_CLIENT (326, broker → requesting client) header: RocketMQ 4.9's
// ReplyMessageRequestHeader. The broker fills it from the replier's send header, the replier's
// address (bornHost) and its own (storeHost); the body is the reply's body as sent (compressed
// when sys_flag says so). docs/request_reply.md.
//
// Each struct names its extFields once, in fields() (remoting/header/field_codec.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "remoting/ext_fields.h"
#include "remoting/header/field_codec.h"
#include "runtime/result.h"

namespace ferry::remoting {

struct ReplyMessageRequestHeader {
  std::string producer_group;
  std::string topic;  // the reply topic ({cluster}_REPLY_TOPIC)
  std::string default_topic;
  std::int32_t default_topic_queue_nums = 0;
  std::int32_t queue_id = 0;  // as the replier sent it (may be -1)
  std::int32_t sys_flag = 0;
  std::int64_t born_timestamp = 0;
  std::int32_t flag = 0;
  std::optional<std::string> properties;  // with PUSH_REPLY_TIME added by the broker
  std::optional<std::int32_t> reconsume_times;
  std::optional<bool> unit_mode;
  std::string born_host;   // "ip:port" of the replier
  std::string store_host;  // "ip:port" of the broker
  std::int64_t store_timestamp = 0;

  static constexpr auto fields() {
    using H = ReplyMessageRequestHeader;
    return header_table("ReplyMessageRequestHeader",
                        required("producerGroup", &H::producer_group),
                        required("topic", &H::topic),
                        required("defaultTopic", &H::default_topic),
                        required("defaultTopicQueueNums", &H::default_topic_queue_nums),
                        required("queueId", &H::queue_id),
                        required("sysFlag", &H::sys_flag),
                        required("bornTimestamp", &H::born_timestamp),
                        required("flag", &H::flag),
                        optional("properties", &H::properties),
                        optional("reconsumeTimes", &H::reconsume_times),
                        optional("unitMode", &H::unit_mode),
                        required("bornHost", &H::born_host),
                        required("storeHost", &H::store_host),
                        required("storeTimestamp", &H::store_timestamp));
  }
  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<ReplyMessageRequestHeader> from_fields(const ExtFields& f) { return fields().decode(f); }
  ExtFields to_fields() const { return fields().encode(*this); }
  bool operator==(const ReplyMessageRequestHeader&) const = default;
};

}  // namespace ferry::remoting
