// QUERY_CONSUMER_OFFSET (14) and UPDATE_CONSUMER_OFFSET (15) (RocketMQ's ConsumerManageProcessor).
//
// Query: the committed offset (0). With none: 0 when the queue's min offset is 0 and its first
// message is not "on disk" (more than access_message_in_memory_max_ratio % of
// total_memory_bytes behind the CommitLog end) — an empty or missing queue included; otherwise
// QUERY_NOT_FOUND (22) and the client applies its consumeFromWhere.
// Update: stores the offset (any value >= 0) and replies SUCCESS (also sent oneway). Ferry checks
// what RocketMQ 4.9 does not, so a client cannot grow the table with made-up names: the group
// and topic names are valid (SYSTEM_ERROR), the topic exists (TOPIC_NOT_EXIST, 17), the queue is
// one of its queues (SYSTEM_ERROR), and the table has room for a new topic@group pair
// (SYSTEM_ERROR, ConsumerOffsetManager::kTopicGroupPairsMax).
// Bad header fields → SYSTEM_ERROR naming the field.
#pragma once

#include "broker/broker_config.h"
#include "broker/consumer_offset_manager.h"
#include "broker/replies.h"
#include "broker/topic_config_manager.h"
#include "store/message_store.h"

namespace ferry::broker {

class ConsumerOffsetProcessor {
 public:
  ConsumerOffsetProcessor(const BrokerConfig& config, store::MessageStore& store, const TopicConfigManager& topics,
                          ConsumerOffsetManager& offsets);

  Task<Reply> query(RequestContext ctx);
  Task<Reply> update(RequestContext ctx);

 private:
  // RocketMQ's checkInDiskByConsumeOffset(topic, queue, 0).
  bool first_message_on_disk(const std::string& topic, QueueId queue) const;

  const BrokerConfig& config_;
  store::MessageStore& store_;
  const TopicConfigManager& topics_;
  ConsumerOffsetManager& offsets_;
};

}  // namespace ferry::broker
