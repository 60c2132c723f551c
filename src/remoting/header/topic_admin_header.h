// Broker admin headers: UPDATE_AND_CREATE_TOPIC (17), DELETE_TOPIC_IN_BROKER (215) and
// DELETE_SUBSCRIPTIONGROUP (207). (UPDATE_AND_CREATE_SUBSCRIPTIONGROUP carries its config as a
// JSON body, not in the header.)
//
// Each struct names its extFields once, in fields(), which from_fields() and to_fields() both
// walk (remoting/header/field_codec.h says what required / optional / only_if_true mean).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "remoting/ext_fields.h"
#include "remoting/header/field_codec.h"
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

  static constexpr auto fields() {
    using H = CreateTopicRequestHeader;
    return header_table("CreateTopicRequestHeader",
                        required("topic", &H::topic),
                        required("defaultTopic", &H::default_topic),
                        required("readQueueNums", &H::read_queue_nums),
                        required("writeQueueNums", &H::write_queue_nums),
                        required("perm", &H::perm),
                        required("topicFilterType", &H::topic_filter_type),
                        optional("topicSysFlag", &H::topic_sys_flag),
                        optional("order", &H::order));
  }
  // Errors (Errc::invalid_argument) name the missing or malformed field, or a topicFilterType
  // other than SINGLE_TAG / MULTI_TAG.
  static Result<CreateTopicRequestHeader> from_fields(const ExtFields& f);
  ExtFields to_fields() const { return fields().encode(*this); }

  bool operator==(const CreateTopicRequestHeader&) const = default;
};

struct DeleteTopicRequestHeader {
  std::string topic;

  static constexpr auto fields() {
    using H = DeleteTopicRequestHeader;
    return header_table("DeleteTopicRequestHeader", required("topic", &H::topic));
  }
  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<DeleteTopicRequestHeader> from_fields(const ExtFields& f) {
    return fields().decode(f);
  }
  ExtFields to_fields() const { return fields().encode(*this); }

  bool operator==(const DeleteTopicRequestHeader&) const = default;
};

struct DeleteSubscriptionGroupRequestHeader {
  std::string group_name;
  // RocketMQ 4.9.4+: also forget the group's consumer offsets (absent: false).
  bool remove_offset = false;

  static constexpr auto fields() {
    using H = DeleteSubscriptionGroupRequestHeader;
    return header_table("DeleteSubscriptionGroupRequestHeader",
                        required("groupName", &H::group_name),
                        only_if_true("removeOffset", &H::remove_offset));
  }
  // Errors (Errc::invalid_argument) name the missing or malformed field.
  static Result<DeleteSubscriptionGroupRequestHeader> from_fields(const ExtFields& f) {
    return fields().decode(f);
  }
  ExtFields to_fields() const { return fields().encode(*this); }

  bool operator==(const DeleteSubscriptionGroupRequestHeader&) const = default;
};

// GET_SUBSCRIPTIONGROUP_CONFIG (352, RocketMQ 5): which group.
struct GetSubscriptionGroupConfigRequestHeader {
  std::string group;

  static constexpr auto fields() {
    using H = GetSubscriptionGroupConfigRequestHeader;
    return header_table("GetSubscriptionGroupConfigRequestHeader", required("group", &H::group));
  }
  static Result<GetSubscriptionGroupConfigRequestHeader> from_fields(const ExtFields& f) { return fields().decode(f); }
  ExtFields to_fields() const { return fields().encode(*this); }

  bool operator==(const GetSubscriptionGroupConfigRequestHeader&) const = default;
};

}  // namespace ferry::remoting
