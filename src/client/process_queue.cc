#include "client/process_queue.h"

#include "runtime/assert.h"

namespace ferry::client {

bool ProcessQueue::put(std::vector<MessageExt> msgs) {
  for (MessageExt& m : msgs) {
    const QueueOffset o = m.queue_offset;
    if (msgs_.count(o) != 0 || consuming_.count(o) != 0) continue;
    if (!max_cached_ || o > *max_cached_) max_cached_ = o;
    account(m, +1);
    msgs_.emplace(o, std::move(m));
  }
  if (!msgs_.empty() && !consuming_flag_) {
    consuming_flag_ = true;
    return true;
  }
  return false;
}

std::int64_t ProcessQueue::span() const {
  if (msgs_.empty()) return 0;
  return msgs_.rbegin()->first - msgs_.begin()->first;
}

std::optional<QueueOffset> ProcessQueue::remove(const std::vector<MessageExt>& msgs) {
  if (!max_cached_) return std::nullopt;
  for (const MessageExt& m : msgs) {
    auto it = msgs_.find(m.queue_offset);
    if (it == msgs_.end()) continue;
    account(it->second, -1);
    msgs_.erase(it);
    consume_started_.erase(m.queue_offset);
  }
  if (!msgs_.empty()) return msgs_.begin()->first;
  return *max_cached_ + 1;
}

void ProcessQueue::mark_consume_started(const std::vector<MessageExt>& msgs, MonoTime now) {
  for (const MessageExt& m : msgs) {
    if (msgs_.count(m.queue_offset) != 0) consume_started_.insert_or_assign(m.queue_offset, now);
  }
}

std::optional<MessageExt> ProcessQueue::expired_first(MonoTime now, Duration timeout) const {
  if (msgs_.empty()) return std::nullopt;
  auto first = msgs_.begin();
  auto started = consume_started_.find(first->first);
  if (started == consume_started_.end() || now - started->second <= timeout) return std::nullopt;
  return first->second;
}

std::vector<MessageExt> ProcessQueue::take(std::size_t n) {
  std::vector<MessageExt> out;
  while (out.size() < n && !msgs_.empty()) {
    auto it = msgs_.begin();
    out.push_back(it->second);
    consuming_.emplace(it->first, std::move(it->second));
    msgs_.erase(it);
  }
  if (out.empty()) consuming_flag_ = false;
  return out;
}

std::optional<QueueOffset> ProcessQueue::commit() {
  if (consuming_.empty()) return std::nullopt;
  const QueueOffset next = consuming_.rbegin()->first + 1;
  for (const auto& [o, m] : consuming_) account(m, -1);
  consuming_.clear();
  return next;
}

void ProcessQueue::put_back(std::vector<MessageExt> msgs) {
  for (MessageExt& m : msgs) {
    auto it = consuming_.find(m.queue_offset);
    FERRY_ASSERT(it != consuming_.end(), "put_back of offset {} of {} that was not taken", m.queue_offset, mq_.to_string());
    consuming_.erase(it);
    msgs_.insert_or_assign(m.queue_offset, std::move(m));
  }
}

}  // namespace ferry::client
