#include "common/names.h"

#include <fmt/format.h>

namespace ferry {
namespace {

bool valid_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '%' ||
         c == '|' || c == '_' || c == '-';
}

Status validate_name(std::string_view what, std::string_view name, std::size_t max) {
  if (name.empty()) return Error(Errc::invalid_argument, fmt::format("{} name is empty", what));
  if (name.size() > max) {
    return Error(Errc::invalid_argument,
                 fmt::format("{} name has {} characters, at most {}: '{}...'", what, name.size(),
                             max, name.substr(0, 40)));
  }
  for (std::size_t i = 0; i < name.size(); ++i) {
    if (!valid_char(name[i])) {
      return Error(Errc::invalid_argument,
                   fmt::format("{} name '{}' has a character outside [%|a-zA-Z0-9_-] at {}", what,
                               name.substr(0, 160), i));
    }
  }
  return {};
}

}  // namespace

Status validate_topic(std::string_view topic) {
  return validate_name("topic", topic, kTopicNameCharsMax);
}

Status validate_group(std::string_view group) {
  return validate_name("group", group, kGroupNameCharsMax);
}

bool is_system_topic(std::string_view topic) {
  return topic == kAutoCreateTopicKey || topic == kScheduleTopic ||
         topic == kTransCheckMaxTimeTopic || topic == kSelfTestTopic ||
         topic == kOffsetMovedEventTopic || topic.starts_with(kSystemTopicPrefixUpper) ||
         topic.starts_with(kSystemTopicPrefixLower);
}

bool is_system_group(std::string_view group) {
  static constexpr std::string_view kGroups[] = {
      "TOOLS_CONSUMER",        "FILTERSRV_CONSUMER",    "__MONITOR_CONSUMER",   "CLIENT_INNER_PRODUCER",
      "SELF_TEST_P_GROUP",     "SELF_TEST_C_GROUP",     "CID_ONS-HTTP-PROXY",   "CID_ONSAPI_PERMISSION",
      "CID_ONSAPI_OWNER",      "CID_ONSAPI_PULL"};
  if (group.starts_with("CID_RMQ_SYS_")) return true;
  for (std::string_view g : kGroups) {
    if (g == group) return true;
  }
  return false;
}

std::string reply_topic(std::string_view cluster) { return fmt::format("{}{}", cluster, kReplyTopicSuffix); }

std::string retry_topic(std::string_view group) {
  return fmt::format("{}{}", kRetryTopicPrefix, group);
}
std::string dlq_topic(std::string_view group) { return fmt::format("{}{}", kDlqTopicPrefix, group); }
bool is_retry_topic(std::string_view topic) { return topic.starts_with(kRetryTopicPrefix); }
bool is_dlq_topic(std::string_view topic) { return topic.starts_with(kDlqTopicPrefix); }

}  // namespace ferry
