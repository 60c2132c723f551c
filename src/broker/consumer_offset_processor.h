// QUERY_CONSUMER_OFFSET (14) and UPDATE_CONSUMER_OFFSET (15) (RocketMQ's ConsumerManageProcessor).
//
// Query: the committed offset (0). With none: 0 when the queue's min offset is 0 and its first
// message is not "on disk" (more than access_message_in_memory_max_ratio % of
// total_memory_bytes behind the CommitLog end) — an empty or missing queue included; otherwise
// QUERY_NOT_FOUND (22) and the client applies its consumeFromWhere.
// Update: stores the offset (any value >= 0) and replies SUCCESS (also sent oneway).
// Bad header fields → SYSTEM_ERROR naming the field.
#pragma once

#include "broker/broker_config.h"
#include "broker/consumer_offset_manager.h"
#include "broker/replies.h"
#include "store/message_store.h"

namespace ferry::broker {

class ConsumerOffsetProcessor {
 public:
  ConsumerOffsetProcessor(const BrokerConfig& config, store::MessageStore& store,
                          ConsumerOffsetManager& offsets);

  Task<Reply> query(RequestContext ctx);
  Task<Reply> update(RequestContext ctx);

 private:
  // RocketMQ's checkInDiskByConsumeOffset(topic, queue, 0).
  bool first_message_on_disk(const std::string& topic, QueueId queue) const;

  const BrokerConfig& config_;
  store::MessageStore& store_;
  ConsumerOffsetManager& offsets_;
};

}  // namespace ferry::broker
