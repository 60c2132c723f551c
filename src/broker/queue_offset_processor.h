// Per-queue offset look-ups (RocketMQ's AdminBrokerProcessor): GET_MAX_OFFSET (30),
// GET_MIN_OFFSET (31), SEARCH_OFFSET_BY_TIMESTAMP (29: the first offset stored at or after the
// time; the max offset when none is), GET_EARLIEST_MSG_STORETIME (32: -1 for an empty queue).
// A queue that does not exist has offsets 0. Bad header fields → SYSTEM_ERROR naming the field.
#pragma once

#include "broker/replies.h"
#include "store/message_store.h"

namespace ferry::broker {

class QueueOffsetProcessor {
 public:
  explicit QueueOffsetProcessor(store::MessageStore& store) : store_(store) {}

  Task<Reply> max_offset(RequestContext ctx);
  Task<Reply> min_offset(RequestContext ctx);
  Task<Reply> search_by_timestamp(RequestContext ctx);
  Task<Reply> earliest_store_time(RequestContext ctx);

 private:
  store::MessageStore& store_;
};

}  // namespace ferry::broker
