#include "client/remote_offset_store.h"

#include <algorithm>

#include "client/consumer_calls.h"

namespace ferry::client {

Task<Result<std::optional<QueueOffset>>> RemoteOffsetStore::query_store(MessageQueue mq) {
  co_return co_await query_consumer_offset(ci_, group_, mq);
}

std::vector<std::pair<MessageQueue, QueueOffset>> RemoteOffsetStore::keep_only(std::vector<MessageQueue> mqs) {
  std::sort(mqs.begin(), mqs.end());
  std::vector<std::pair<MessageQueue, QueueOffset>> out;
  for (auto it = table_.begin(); it != table_.end();) {
    if (std::binary_search(mqs.begin(), mqs.end(), it->first)) {
      out.emplace_back(it->first, it->second);
      ++it;
    } else {
      it = table_.erase(it);  // RocketMQ drops the offsets of queues no longer held
    }
  }
  return out;
}

Task<void> RemoteOffsetStore::persist_all(std::vector<MessageQueue> mqs) {
  for (auto& [mq, offset] : keep_only(std::move(mqs))) {
    Status s = co_await update_consumer_offset_oneway(ci_, group_, mq, offset);
    if (!s.ok()) ci_.runtime().log().info("persist offset {} of {}: {}", offset, mq.to_string(), s.error().to_string());
  }
}

Task<void> RemoteOffsetStore::persist_final(std::vector<MessageQueue> mqs) {
  for (auto& [mq, offset] : keep_only(std::move(mqs))) {
    Status s = co_await update_consumer_offset(ci_, group_, mq, offset);
    if (!s.ok()) ci_.runtime().log().warn("persist offset {} of {} at shutdown: {}", offset, mq.to_string(), s.error().to_string());
  }
}

Task<void> RemoteOffsetStore::persist(MessageQueue mq) {
  std::optional<QueueOffset> offset = read_memory(mq);
  if (!offset) co_return;
  Status s = co_await update_consumer_offset_oneway(ci_, group_, mq, *offset);
  if (!s.ok()) ci_.runtime().log().info("persist offset {} of {}: {}", *offset, mq.to_string(), s.error().to_string());
}

}  // namespace ferry::client
