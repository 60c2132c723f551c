// POP consumption headers (RocketMQ 5): POP_MESSAGE (200050), ACK_MESSAGE (200051) and
// CHANGE_MESSAGE_INVISIBLETIME (200053). BATCH_ACK_MESSAGE (200151) has no header; its body is
// body/batch_ack_body.h.
//
// Field names and required-ness are RocketMQ 5.3's (@CFNotNull = required). Times are wall-clock
// milliseconds, durations milliseconds. `extraInfo` is a receipt handle (common/pop_receipt.h).
// RocketMQ's RpcRequestHeader fields (bname, ns, ...) are not listed: unknown fields are ignored.
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

// ConsumeInitMode: where a group without an offset starts.
inline constexpr std::int32_t kPopInitModeMin = 0;  // the queue's first message
inline constexpr std::int32_t kPopInitModeMax = 1;  // the queue's last message (RocketMQ: "pop last one")

struct PopMessageRequestHeader {
  std::string consumer_group;
  std::string topic;
  std::int32_t queue_id = -1;            // < 0: every readable queue
  std::int32_t max_msg_nums = 0;         // 1..32
  std::int64_t invisible_time = 0;       // ms a handed-out message stays invisible
  std::int64_t poll_time = 0;            // ms of long polling when nothing is found (0: none)
  std::int64_t born_time = 0;            // the client's wall ms when it sent the request
  std::int32_t init_mode = kPopInitModeMin;
  std::optional<std::string> exp_type;   // "TAG" (default) or "SQL92"
  std::optional<std::string> exp;        // the expression; absent or empty: "*"
  std::optional<bool> order;             // FIFO: one batch of a queue at a time
  std::optional<std::string> attempt_id;  // a retried request of the same attempt

  static constexpr auto fields() {
    using H = PopMessageRequestHeader;
    return header_table("PopMessageRequestHeader",
                        required("consumerGroup", &H::consumer_group),
                        required("topic", &H::topic),
                        required("queueId", &H::queue_id),
                        required("maxMsgNums", &H::max_msg_nums),
                        required("invisibleTime", &H::invisible_time),
                        required("pollTime", &H::poll_time),
                        required("bornTime", &H::born_time),
                        required("initMode", &H::init_mode),
                        optional("expType", &H::exp_type),
                        optional("exp", &H::exp),
                        optional("order", &H::order),
                        optional("attemptId", &H::attempt_id));
  }
  static Result<PopMessageRequestHeader> from_fields(const ExtFields& f) { return fields().decode(f); }
  ExtFields to_fields() const { return fields().encode(*this); }
  bool is_order() const { return order.value_or(false); }
  bool operator==(const PopMessageRequestHeader&) const = default;
};

// The *Info strings are common/pop_receipt.h's offset-info formats.
struct PopMessageResponseHeader {
  std::int64_t pop_time = 0;
  std::int64_t invisible_time = 0;
  std::int32_t revive_qid = 0;
  std::int64_t rest_num = 0;  // messages left behind in the queues looked at
  std::optional<std::string> start_offset_info;
  std::optional<std::string> msg_offset_info;
  std::optional<std::string> order_count_info;

  static constexpr auto fields() {
    using H = PopMessageResponseHeader;
    return header_table("PopMessageResponseHeader",
                        required("popTime", &H::pop_time),
                        required("invisibleTime", &H::invisible_time),
                        required("reviveQid", &H::revive_qid),
                        required("restNum", &H::rest_num),
                        optional("startOffsetInfo", &H::start_offset_info),
                        optional("msgOffsetInfo", &H::msg_offset_info),
                        optional("orderCountInfo", &H::order_count_info));
  }
  static Result<PopMessageResponseHeader> from_fields(const ExtFields& f) { return fields().decode(f); }
  ExtFields to_fields() const { return fields().encode(*this); }
  bool operator==(const PopMessageResponseHeader&) const = default;
};

// `topic` is the topic the message was popped from: the group's POP retry topic for a retried
// one (common/pop_receipt.h: real_topic()); `offset` its queue offset there.
struct AckMessageRequestHeader {
  std::string consumer_group;
  std::string topic;
  QueueId queue_id;
  std::string extra_info;
  QueueOffset offset;

  static constexpr auto fields() {
    using H = AckMessageRequestHeader;
    return header_table("AckMessageRequestHeader",
                        required("consumerGroup", &H::consumer_group),
                        required("topic", &H::topic),
                        required("queueId", &H::queue_id),
                        required("extraInfo", &H::extra_info),
                        required("offset", &H::offset));
  }
  static Result<AckMessageRequestHeader> from_fields(const ExtFields& f) { return fields().decode(f); }
  ExtFields to_fields() const { return fields().encode(*this); }
  bool operator==(const AckMessageRequestHeader&) const = default;
};

struct ChangeInvisibleTimeRequestHeader {
  std::string consumer_group;
  std::string topic;
  QueueId queue_id;
  std::string extra_info;
  QueueOffset offset;
  std::int64_t invisible_time = 0;  // ms from now

  static constexpr auto fields() {
    using H = ChangeInvisibleTimeRequestHeader;
    return header_table("ChangeInvisibleTimeRequestHeader",
                        required("consumerGroup", &H::consumer_group),
                        required("topic", &H::topic),
                        required("queueId", &H::queue_id),
                        required("extraInfo", &H::extra_info),
                        required("offset", &H::offset),
                        required("invisibleTime", &H::invisible_time));
  }
  static Result<ChangeInvisibleTimeRequestHeader> from_fields(const ExtFields& f) { return fields().decode(f); }
  ExtFields to_fields() const { return fields().encode(*this); }
  bool operator==(const ChangeInvisibleTimeRequestHeader&) const = default;
};

// The new handle's times: the client builds it (common/pop_receipt.h: after_change()).
struct ChangeInvisibleTimeResponseHeader {
  std::int64_t pop_time = 0;
  std::int64_t invisible_time = 0;
  std::int32_t revive_qid = 0;

  static constexpr auto fields() {
    using H = ChangeInvisibleTimeResponseHeader;
    return header_table("ChangeInvisibleTimeResponseHeader",
                        required("popTime", &H::pop_time),
                        required("invisibleTime", &H::invisible_time),
                        required("reviveQid", &H::revive_qid));
  }
  static Result<ChangeInvisibleTimeResponseHeader> from_fields(const ExtFields& f) { return fields().decode(f); }
  ExtFields to_fields() const { return fields().encode(*this); }
  bool operator==(const ChangeInvisibleTimeResponseHeader&) const = default;
};

}  // namespace ferry::remoting
