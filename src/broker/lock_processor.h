// LockProcessor: LOCK_BATCH_MQ (41) and UNLOCK_BATCH_MQ (42) for orderly consumers (RocketMQ's
// AdminBrokerProcessor.lockBatchMQ / unlockBatchMQ over the RebalanceLockManager).
//
// Body {consumerGroup, clientId, onlyThisBroker, mqSet:[{topic, brokerName, queueId}]}.
// LOCK replies SUCCESS with {"lockOKMQSet":[...]} (the queues the client now holds, sorted);
// UNLOCK replies SUCCESS. A body that does not decode, an empty consumerGroup or clientId, or
// more than lock_batch_queues_max queues → 1 SYSTEM_ERROR naming the field.
#pragma once

#include "broker/broker_config.h"
#include "broker/rebalance_lock_manager.h"
#include "broker/replies.h"

namespace ferry::broker {

class LockProcessor {
 public:
  LockProcessor(const BrokerConfig& config, RebalanceLockManager& locks) : config_(config), locks_(locks) {}

  Task<Reply> lock(RequestContext ctx);
  Task<Reply> unlock(RequestContext ctx);

 private:
  const BrokerConfig& config_;
  RebalanceLockManager& locks_;
};

}  // namespace ferry::broker
