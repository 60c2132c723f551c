// Creating the per-group topics of retry and dead-letter delivery (RocketMQ's
// TopicConfigManager.createTopicInSendMessageBackMethod): `%RETRY%{group}` (heartbeats of
// clustering consumers, send-back) and `%DLQ%{group}` (send-back past maxReconsumeTimes).
#pragma once

#include <string_view>

#include "broker/topic_config_manager.h"

namespace ferry::broker {

inline constexpr std::int32_t kDlqQueueNums = 1;  // DLQ_NUMS_PER_GROUP

// The topic if it exists (unchanged); else a new one with `queues` read and write queues, `perm`
// and `topic_sys_flag` (a change: persisted and registered). nullptr when `queues` <= 0.
const TopicConfig* ensure_topic(TopicConfigManager& topics, std::string_view topic, std::int32_t queues,
                                std::int32_t perm, std::int32_t topic_sys_flag);

}  // namespace ferry::broker
