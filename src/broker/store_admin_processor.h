// CLEAN_EXPIRED_CONSUMEQUEUE (306), RocketMQ's AdminBrokerProcessor.cleanExpiredConsumeQueue: no
// header, no body. The store destroys every ConsumeQueue whose messages the CommitLog no longer
// holds (MessageStore::clean_expired_queues says which, and what a crash in the middle leaves),
// except the delay topic's (SCHEDULE_TOPIC_XXXX: the schedule service tracks its offsets, and
// RocketMQ keeps it too). Reply: SUCCESS with no remark, as RocketMQ (which answers SUCCESS
// whatever happened); Ferry answers SYSTEM_ERROR (1) with the store's error as the remark when a
// removal or a read failed (what was removed before stays removed; a retry continues), or when
// the store is not open. What was destroyed is logged (at most one run per 10 s: LogLimiter).
#pragma once

#include "broker/replies.h"
#include "runtime/log_limiter.h"
#include "runtime/runtime.h"
#include "store/message_store.h"

namespace ferry::broker {

class StoreAdminProcessor {
 public:
  StoreAdminProcessor(Runtime& rt, store::MessageStore& store) : rt_(rt), store_(store) {}

  Task<Reply> clean_expired_consume_queue(RequestContext ctx);

 private:
  Runtime& rt_;
  store::MessageStore& store_;
  LogLimiter run_log_;    // runs (an admin can ask at will): start and end lines
  LogLimiter error_log_;  // failed runs, by Errc
};

}  // namespace ferry::broker
