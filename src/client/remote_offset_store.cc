#include "client/remote_offset_store.h"

#include <algorithm>

#include "client/consumer_calls.h"

namespace ferry::client {

Task<Result<std::optional<QueueOffset>>> RemoteOffsetStore::query_store(MessageQueue mq) {
  co_return co_await query_consumer_offset(ci_, group_, mq);
}

std::vector<MessageQueue> RemoteOffsetStore::keep_only(std::vector<MessageQueue> mqs) {
  std::sort(mqs.begin(), mqs.end());
  std::vector<MessageQueue> out;
  for (auto it = table_.begin(); it != table_.end();) {
    if (std::binary_search(mqs.begin(), mqs.end(), it->first)) {
      out.push_back(it->first);
      ++it;
    } else {
      it = table_.erase(it);  // RocketMQ drops the offsets of queues no longer held
    }
  }
  return out;
}

// Each offset is read as its update is sent, not when the round starts: an update to an
// unreachable broker may wait for its connection, and a value read before that wait would reach
// the next broker older than what a pull has committed there since (commit_forward), moving the
// committed offset back (RocketMQ reads each queue's offset as it sends, and its oneway sends do
// not wait).
Task<void> RemoteOffsetStore::persist_all(std::vector<MessageQueue> mqs) {
  for (const MessageQueue& mq : keep_only(std::move(mqs))) {
    const std::optional<QueueOffset> offset = read_memory(mq);
    if (!offset) continue;  // dropped meanwhile
    Status s = co_await update_consumer_offset_oneway(ci_, group_, mq, *offset);
    if (!s.ok()) log_persist_failure(*offset, mq, s.error());
  }
}

Task<void> RemoteOffsetStore::persist_final(std::vector<MessageQueue> mqs) {
  for (const MessageQueue& mq : keep_only(std::move(mqs))) {
    const std::optional<QueueOffset> offset = read_memory(mq);
    if (!offset) continue;
    Status s = co_await update_consumer_offset(ci_, group_, mq, *offset);
    if (!s.ok()) ci_.runtime().log().warn("persist offset {} of {} at shutdown: {}", *offset, mq.to_string(), s.error().to_string());
  }
}

Task<void> RemoteOffsetStore::persist(MessageQueue mq) {
  std::optional<QueueOffset> offset = read_memory(mq);
  if (!offset) co_return;
  Status s = co_await update_consumer_offset_oneway(ci_, group_, mq, *offset);
  if (!s.ok()) log_persist_failure(*offset, mq, s.error());
}

void RemoteOffsetStore::log_persist_failure(QueueOffset offset, const MessageQueue& mq, const Error& why) {
  if (auto held = persist_error_log_.admit(ci_.runtime().now(), static_cast<std::int64_t>(why.code))) {
    ci_.runtime().log().info("persist offset {} of {}: {}{}", offset, mq.to_string(), why.to_string(),
                             held_back_note(*held));
  }
}

}  // namespace ferry::client
