#include "client/rebalance.h"

#include <fmt/format.h>

#include <algorithm>

#include "client/client_errors.h"
#include "client/consumer_calls.h"
#include "common/names.h"

namespace ferry::client {

Task<Result<std::vector<MessageQueue>>> allocated_queues(ClientInstance& ci, AllocationRequest req) {
  std::vector<MessageQueue> queues = ci.subscribe_queues(req.topic);
  if (queues.empty()) {
    Status s = co_await ci.update_topic_route(req.topic);
    if (!s.ok()) co_return with_context(fmt::format("rebalance of group '{}'", req.group), std::move(s).error());
    queues = ci.subscribe_queues(req.topic);
  }
  if (queues.empty()) co_return Error(Errc::not_found, fmt::format("topic '{}' has no readable queue", req.topic));
  std::sort(queues.begin(), queues.end());
  queues.erase(std::unique(queues.begin(), queues.end()), queues.end());
  if (req.model == MessageModel::BROADCASTING) co_return queues;

  Result<std::vector<std::string>> ids = co_await find_consumer_ids(ci, req.topic, req.group);
  if (!ids.ok()) co_return std::move(ids).error();
  if (ids->empty()) {
    co_return Error(Errc::not_found, fmt::format("group '{}' has no consumer at the broker yet (topic '{}')", req.group, req.topic));
  }
  std::sort(ids->begin(), ids->end());
  ids->erase(std::unique(ids->begin(), ids->end()), ids->end());
  co_return allocate(req.strategy, queues, *ids, ci.client_id());
}

Task<Result<QueueOffset>> start_offset(ClientInstance& ci, OffsetStore& store, StartOffsetRequest req) {
  // Not `cond ? co_await a : co_await b`: GCC destroys a temporary of a co_await in a
  // conditional expression twice (a double free).
  Task<Result<std::optional<QueueOffset>>> query = req.remember_stored ? store.read_store(req.queue) : store.query_store(req.queue);
  Result<std::optional<QueueOffset>> stored = co_await std::move(query);
  if (!stored.ok()) co_return std::move(stored).error();
  if (stored->has_value()) co_return **stored;
  const bool retry = req.queue.topic.starts_with(kRetryTopicPrefix);
  switch (req.from) {
    case ConsumeFromWhere::CONSUME_FROM_FIRST_OFFSET:
    case ConsumeFromWhere::CONSUME_FROM_MIN_OFFSET:
      co_return QueueOffset(0);
    case ConsumeFromWhere::CONSUME_FROM_TIMESTAMP:
      if (retry) co_return co_await max_offset(ci, req.queue);
      co_return co_await search_offset(ci, req.queue, req.timestamp_ms);
    case ConsumeFromWhere::CONSUME_FROM_LAST_OFFSET:
    case ConsumeFromWhere::CONSUME_FROM_LAST_OFFSET_AND_FROM_MIN_WHEN_BOOT_FIRST:
    case ConsumeFromWhere::CONSUME_FROM_MAX_OFFSET:
      break;
  }
  if (retry) co_return QueueOffset(0);
  co_return co_await max_offset(ci, req.queue);
}

}  // namespace ferry::client
