// SEND_MESSAGE (10) / SEND_MESSAGE_V2 (310) / SEND_BATCH_MESSAGE (320) request header, and the
// send reply header.
//
// V1 uses RocketMQ's field names; V2 (also used for batches) the same fields under one-letter
// names to save bytes: a producerGroup, b topic, c defaultTopic, d defaultTopicQueueNums,
// e queueId, f sysFlag, g bornTimestamp, h flag, i properties, j reconsumeTimes, k unitMode,
// l maxReconsumeTimes, m batch, n brokerName.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "remoting/ext_fields.h"
#include "runtime/result.h"

namespace ferry::remoting {

struct SendMessageRequestHeader {
  std::string producer_group;
  std::string topic;
  std::string default_topic;            // the template topic for auto-creation (TBW102)
  std::int32_t default_topic_queue_nums = 0;
  std::int32_t queue_id = 0;            // < 0: the broker picks a writable queue
  std::int32_t sys_flag = 0;
  std::int64_t born_timestamp = 0;      // ms since the epoch, the producer's clock
  std::int32_t flag = 0;
  std::optional<std::string> properties;  // "k\x01v\x02k\x01v"
  std::optional<std::int32_t> reconsume_times;
  bool unit_mode = false;
  bool batch = false;
  std::optional<std::int32_t> max_reconsume_times;
  std::optional<std::string> broker_name;  // RocketMQ 5 clients only (V1 "bname", V2 "n")

  // Errors name the missing or malformed field, e.g. "SendMessageRequestHeader: missing field
  // topic" / "SendMessageRequestHeaderV2: field e = \"x\" is not an int32".
  static Result<SendMessageRequestHeader> from_fields(const ExtFields& f);     // V1 names
  static Result<SendMessageRequestHeader> from_fields_v2(const ExtFields& f);  // a..n
  // V1 for SEND_MESSAGE; V2 for SEND_MESSAGE_V2 and SEND_BATCH_MESSAGE; another code is an
  // Errc::invalid_argument error.
  static Result<SendMessageRequestHeader> from_request(std::int32_t code, const ExtFields& f);
  // Fields in declaration order; unit_mode and batch are always written, absent optionals never.
  ExtFields to_fields() const;
  ExtFields to_fields_v2() const;

  bool operator==(const SendMessageRequestHeader&) const = default;
};

struct SendMessageResponseHeader {
  std::string msg_id;  // offset msgId(s), uppercase hex, comma-joined for a batch
  std::int32_t queue_id = 0;
  std::int64_t queue_offset = 0;
  std::optional<std::string> transaction_id;
  std::optional<std::string> msg_region;  // extField "MSG_REGION"
  std::optional<std::string> trace_on;    // extField "TRACE_ON" ("true"/"false")

  static Result<SendMessageResponseHeader> from_fields(const ExtFields& f);
  ExtFields to_fields() const;

  bool operator==(const SendMessageResponseHeader&) const = default;
};

}  // namespace ferry::remoting
