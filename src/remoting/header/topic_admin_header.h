// UPDATE_AND_CREATE_TOPIC (17) request header.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "remoting/ext_fields.h"
#include "runtime/result.h"

namespace ferry::remoting {

struct CreateTopicRequestHeader {
  std::string topic;
  std::string default_topic;
  std::int32_t read_queue_nums = 0;
  std::int32_t write_queue_nums = 0;
  // permission bits: 4 read, 2 write, 1 inherit
  std::int32_t perm = 0;
  std::string topic_filter_type;  // "SINGLE_TAG" or "MULTI_TAG" (checked)
  std::optional<std::int32_t> topic_sys_flag;
  bool order = false;

  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<CreateTopicRequestHeader> from_fields(const ExtFields& f);
  ExtFields to_fields() const;

  bool operator==(const CreateTopicRequestHeader&) const = default;
};

}  // namespace ferry::remoting
