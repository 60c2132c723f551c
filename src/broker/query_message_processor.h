// QUERY_MESSAGE (12) and VIEW_MESSAGE_BY_ID (33) (RocketMQ's QueryMessageProcessor).
//
// Query: records whose KEYS entry or UNIQ_KEY equals `key` (the store re-checks the key), newest
// first, at most min(maxNum, the store's index_query_results_max); the reply header carries
// indexLastUpdateTimestamp / indexLastUpdatePhyoffset and the body the records concatenated.
// None → QUERY_NOT_FOUND (22). With `_UNIQUE_KEY_QUERY=true` (a msgId look-up) the time range
// is ignored (clients send 0..Long.MAX_VALUE for those anyway).
// View: the record at the CommitLog offset; a bad offset → SYSTEM_ERROR ("can not find message
// by the offset").
#pragma once

#include "broker/replies.h"
#include "store/message_store.h"

namespace ferry::broker {

class QueryMessageProcessor {
 public:
  explicit QueryMessageProcessor(store::MessageStore& store) : store_(store) {}

  Task<Reply> query(RequestContext ctx);
  Task<Reply> view(RequestContext ctx);

 private:
  store::MessageStore& store_;
};

}  // namespace ferry::broker
