#include "client/offset_store.h"

#include "runtime/assert.h"

namespace ferry::client {

void OffsetStore::update(const MessageQueue& mq, QueueOffset offset, bool increase_only) {
  FERRY_ASSERT(offset.value() >= 0, "offset store: negative offset {} for {}", offset, mq.to_string());
  auto [it, inserted] = table_.emplace(mq, offset);
  if (inserted) return;
  if (increase_only && offset < it->second) return;
  it->second = offset;
}

Task<Result<std::optional<QueueOffset>>> OffsetStore::read_store(MessageQueue mq) {
  Result<std::optional<QueueOffset>> r = co_await query_store(mq);
  if (r.ok() && r->has_value()) update(mq, **r, false);
  co_return r;
}

std::optional<QueueOffset> OffsetStore::read_memory(const MessageQueue& mq) const {
  auto it = table_.find(mq);
  if (it == table_.end()) return std::nullopt;
  return it->second;
}

}  // namespace ferry::client
