// PULL_MESSAGE (11) request and reply headers.
//
// The reply header always carries all four offsets, whatever the reply code: a client moves its
// pull offset to nextBeginOffset on 19/20/21 too.
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

struct PullMessageRequestHeader {
  std::string consumer_group;
  std::string topic;
  QueueId queue_id;
  QueueOffset queue_offset;  // the first consume-queue index wanted
  std::int32_t max_msg_nums = 0;
  // pull_sys_flag bits: 1 commitOffset, 2 suspend, 4 subscription, 8 classFilter
  std::int32_t sys_flag = 0;
  QueueOffset commit_offset;  // stored when the commitOffset bit is set
  std::int64_t suspend_timeout_millis = 0;  // long-poll limit
  // tag expression, with the subscription bit
  std::optional<std::string> subscription;
  std::int64_t sub_version = 0;
  std::optional<std::string> expression_type;  // "TAG" (default) or "SQL92"

  static constexpr auto fields() {
    using H = PullMessageRequestHeader;
    return header_table("PullMessageRequestHeader",
                        required("consumerGroup", &H::consumer_group),
                        required("topic", &H::topic),
                        required("queueId", &H::queue_id),
                        required("queueOffset", &H::queue_offset),
                        required("maxMsgNums", &H::max_msg_nums),
                        required("sysFlag", &H::sys_flag),
                        required("commitOffset", &H::commit_offset),
                        required("suspendTimeoutMillis", &H::suspend_timeout_millis),
                        optional("subscription", &H::subscription),
                        required("subVersion", &H::sub_version),
                        optional("expressionType", &H::expression_type));
  }
  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<PullMessageRequestHeader> from_fields(const ExtFields& f) {
    return fields().decode(f);
  }
  ExtFields to_fields() const { return fields().encode(*this); }

  bool operator==(const PullMessageRequestHeader&) const = default;
};

struct PullMessageResponseHeader {
  std::int64_t suggest_which_broker_id = 0;  // 0 master, else a slave id
  QueueOffset next_begin_offset;
  QueueOffset min_offset;
  QueueOffset max_offset;

  static constexpr auto fields() {
    using H = PullMessageResponseHeader;
    return header_table("PullMessageResponseHeader",
                        required("suggestWhichBrokerId", &H::suggest_which_broker_id),
                        required("nextBeginOffset", &H::next_begin_offset),
                        required("minOffset", &H::min_offset),
                        required("maxOffset", &H::max_offset));
  }
  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<PullMessageResponseHeader> from_fields(const ExtFields& f) {
    return fields().decode(f);
  }
  ExtFields to_fields() const { return fields().encode(*this); }

  bool operator==(const PullMessageResponseHeader&) const = default;
};

}  // namespace ferry::remoting
