// PULL_MESSAGE (11) request and reply headers.
//
// The reply header always carries all four offsets, whatever the reply code: a client moves its
// pull offset to nextBeginOffset on 19/20/21 too.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "remoting/ext_fields.h"
#include "runtime/result.h"

namespace ferry::remoting {

struct PullMessageRequestHeader {
  std::string consumer_group;
  std::string topic;
  std::int32_t queue_id = 0;
  std::int64_t queue_offset = 0;  // the first consume-queue index wanted
  std::int32_t max_msg_nums = 0;
  // pull_sys_flag bits: 1 commitOffset, 2 suspend, 4 subscription, 8 classFilter
  std::int32_t sys_flag = 0;
  std::int64_t commit_offset = 0;  // stored when the commitOffset bit is set
  std::int64_t suspend_timeout_millis = 0;  // long-poll limit
  // tag expression, with the subscription bit
  std::optional<std::string> subscription;
  std::int64_t sub_version = 0;
  std::optional<std::string> expression_type;  // "TAG" (default) or "SQL92"

  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<PullMessageRequestHeader> from_fields(const ExtFields& f);
  ExtFields to_fields() const;

  bool operator==(const PullMessageRequestHeader&) const = default;
};

struct PullMessageResponseHeader {
  std::int64_t suggest_which_broker_id = 0;  // 0 master, else a slave id
  std::int64_t next_begin_offset = 0;
  std::int64_t min_offset = 0;
  std::int64_t max_offset = 0;

  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<PullMessageResponseHeader> from_fields(const ExtFields& f);
  ExtFields to_fields() const;

  bool operator==(const PullMessageResponseHeader&) const = default;
};

}  // namespace ferry::remoting
