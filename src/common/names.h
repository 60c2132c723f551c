// Topic and group names: validation, system topics, retry and dead-letter topics.
#pragma once

#include <string>
#include <string_view>

#include "runtime/result.h"

namespace ferry {

inline constexpr std::size_t kTopicNameCharsMax = 127;
inline constexpr std::size_t kGroupNameCharsMax = 255;

inline constexpr std::string_view kAutoCreateTopicKey = "TBW102";
inline constexpr std::string_view kScheduleTopic = "SCHEDULE_TOPIC_XXXX";
inline constexpr std::string_view kTransHalfTopic = "RMQ_SYS_TRANS_HALF_TOPIC";
// Timer messages wait here (queue 0) until due (RocketMQ 5's TimerMessageStore.TIMER_TOPIC).
inline constexpr std::string_view kTimerTopic = "rmq_sys_wheel_timer";
inline constexpr std::string_view kTransOpHalfTopic = "RMQ_SYS_TRANS_OP_HALF_TOPIC";
inline constexpr std::string_view kTraceTopic = "RMQ_SYS_TRACE_TOPIC";
inline constexpr std::string_view kTransCheckMaxTimeTopic = "TRANS_CHECK_MAX_TIME_TOPIC";
inline constexpr std::string_view kSelfTestTopic = "SELF_TEST_TOPIC";
inline constexpr std::string_view kOffsetMovedEventTopic = "OFFSET_MOVED_EVENT";
inline constexpr std::string_view kSystemTopicPrefixUpper = "RMQ_SYS_";
inline constexpr std::string_view kSystemTopicPrefixLower = "rmq_sys_";

// Request-reply: every broker keeps `{cluster}_REPLY_TOPIC` (1 queue), where reply messages go;
// a reply is marked MSG_TYPE=reply.
inline constexpr std::string_view kReplyTopicSuffix = "_REPLY_TOPIC";
inline constexpr std::string_view kReplyMessageFlag = "reply";
std::string reply_topic(std::string_view cluster);

inline constexpr std::string_view kRetryTopicPrefix = "%RETRY%";
inline constexpr std::string_view kDlqTopicPrefix = "%DLQ%";

// A topic is 1..127 characters of [%|a-zA-Z0-9_-]. Errors (invalid_argument) quote the name and
// say what is wrong.
Status validate_topic(std::string_view topic);
// A group is 1..255 characters of [%|a-zA-Z0-9_-].
Status validate_group(std::string_view group);

// TBW102, SCHEDULE_TOPIC_XXXX, TRANS_CHECK_MAX_TIME_TOPIC, SELF_TEST_TOPIC, OFFSET_MOVED_EVENT,
// and anything starting with RMQ_SYS_ or rmq_sys_. Clients may not send to them.
bool is_system_topic(std::string_view topic);

// RocketMQ's MixAll.isSysConsumerGroup / SYSTEM_GROUP_SET: CID_RMQ_SYS_*, and the groups of its
// own tools (TOOLS_CONSUMER, FILTERSRV_CONSUMER, __MONITOR_CONSUMER, SELF_TEST_*_GROUP,
// CLIENT_INNER_PRODUCER, CID_ONS-HTTP-PROXY, CID_ONSAPI_*). Metrics label them is_system.
bool is_system_group(std::string_view group);

std::string retry_topic(std::string_view group);  // "%RETRY%" + group
std::string dlq_topic(std::string_view group);    // "%DLQ%" + group
bool is_retry_topic(std::string_view topic);
bool is_dlq_topic(std::string_view topic);

}  // namespace ferry
