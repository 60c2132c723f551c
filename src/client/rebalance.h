// Rebalance inputs shared by the push and lite pull consumers (RocketMQ's RebalanceImpl, the
// part that decides; each consumer applies the result to its own queue table).
//
//   allocated_queues  — the queues of `topic` this client should hold: broadcasting, all
//                       readable queues; clustering, sort the readable queues and the group's
//                       client ids (GET_CONSUMER_LIST_BY_GROUP from a broker of the topic) and
//                       take this client's share under the strategy. A topic without a known
//                       route gets one route update first.
//   start_offset      — where a newly held queue starts (RocketMQ's computePullFromWhere): the
//                       stored offset when there is one; else LAST → the queue's max offset
//                       (0 for a %RETRY% topic), FIRST → 0, TIMESTAMP → the offset searched by
//                       `timestamp_ms` (the max offset for a %RETRY% topic).
//
// Errors: not_found (no route, no consumer ids), the broker call errors. A failed topic is
// skipped by the caller until the next round (every 20 s or on NOTIFY_CONSUMER_IDS_CHANGED).
#pragma once

#include <string>
#include <vector>

#include "client/allocate_strategy.h"
#include "client/client_instance.h"
#include "client/consumer_config.h"
#include "client/offset_store.h"

namespace ferry::client {

struct AllocationRequest {
  std::string group;
  std::string topic;
  MessageModel model = MessageModel::CLUSTERING;
  AllocateStrategy strategy = AllocateStrategy::averagely;
};

Task<Result<std::vector<MessageQueue>>> allocated_queues(ClientInstance& ci, AllocationRequest req);

struct StartOffsetRequest {
  MessageQueue queue;
  ConsumeFromWhere from = ConsumeFromWhere::CONSUME_FROM_LAST_OFFSET;
  WallMs timestamp_ms = 0;
  // The stored offset also becomes the store's in-memory offset (OffsetStore::read_store, the
  // push consumer: its ProcessQueue commits from there). The lite pull consumer keeps in memory
  // only what it polled or sought (query_store): a queue it gives up before polling anything
  // must not write back an offset it did not consume.
  bool remember_stored = true;
};

Task<Result<QueueOffset>> start_offset(ClientInstance& ci, OffsetStore& store, StartOffsetRequest req);

}  // namespace ferry::client
