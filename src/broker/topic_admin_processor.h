// UPDATE_AND_CREATE_TOPIC (17) and DELETE_TOPIC_IN_BROKER (215) (RocketMQ's AdminBrokerProcessor).
//
// Create/update: the topic must be a valid name (else 1 SYSTEM_ERROR), not a system topic and
// not the cluster name (1), with queue counts in 1..1024 and perm within 0..15 (1). A success
// replaces the topic's config, bumps the data version, persists topics.json and re-registers
// with the NameServers.
// Delete: removes the topic and every group's committed offsets for it (SUCCESS also when it did
// not exist). The topic's ConsumeQueue files stay on disk (the store does not clean up the
// queues of deleted topics yet); a re-created topic continues at the old offsets.
#pragma once

#include <cstdint>

#include "broker/broker_config.h"
#include "broker/consumer_offset_manager.h"
#include "broker/replies.h"
#include "broker/topic_config_manager.h"

namespace ferry::broker {

// RocketMQ's RequestCode.DELETE_TOPIC_IN_BROKER (not in remoting/request_code.h yet).
inline constexpr std::int32_t kDeleteTopicInBroker = 215;
inline constexpr std::int32_t kTopicQueueNumsMax = 1024;

class TopicAdminProcessor {
 public:
  TopicAdminProcessor(const BrokerConfig& config, TopicConfigManager& topics, ConsumerOffsetManager& offsets)
      : config_(config), topics_(topics), offsets_(offsets) {}

  Task<Reply> create_or_update(RequestContext ctx);
  Task<Reply> remove(RequestContext ctx);

 private:
  const BrokerConfig& config_;
  TopicConfigManager& topics_;
  ConsumerOffsetManager& offsets_;
};

}  // namespace ferry::broker
