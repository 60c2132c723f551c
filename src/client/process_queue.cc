#include "client/process_queue.h"

#include "runtime/assert.h"

namespace ferry::client {

bool ProcessQueue::known(QueueOffset o) const { return msgs_.count(o) != 0 || consuming_.count(o) != 0; }

ProcessQueue::Slot& ProcessQueue::cache(const MessageExt& m) {
  const QueueOffset o = m.queue_offset;
  if (!max_cached_ || o > *max_cached_) max_cached_ = o;
  Slot s;
  s.body_bytes = static_cast<std::int64_t>(m.body.size());
  body_bytes_ += s.body_bytes;
  return msgs_.emplace(o, std::move(s)).first->second;
}

bool ProcessQueue::put(std::vector<MessageExt> msgs) {
  for (MessageExt& m : msgs) {
    if (known(m.queue_offset)) continue;
    Slot& slot = cache(m);  // reads m first
    slot.msg = std::move(m);
  }
  if (!msgs_.empty() && !consuming_flag_) {
    consuming_flag_ = true;
    return true;
  }
  return false;
}

void ProcessQueue::track(const std::vector<MessageExt>& msgs) {
  for (const MessageExt& m : msgs) {
    if (!known(m.queue_offset)) cache(m);
  }
}

std::int64_t ProcessQueue::span() const {
  if (msgs_.empty()) return 0;
  return msgs_.rbegin()->first - msgs_.begin()->first;
}

std::optional<std::pair<QueueOffset, QueueOffset>> ProcessQueue::cached_range() const {
  std::optional<QueueOffset> lo;
  std::optional<QueueOffset> hi;
  auto widen = [&](QueueOffset first, QueueOffset last) {
    if (!lo || first < *lo) lo = first;
    if (!hi || last > *hi) hi = last;
  };
  if (!msgs_.empty()) widen(msgs_.begin()->first, msgs_.rbegin()->first);
  if (!consuming_.empty()) widen(consuming_.begin()->first, consuming_.rbegin()->first);
  if (!lo) return std::nullopt;
  return std::make_pair(*lo, *hi);
}

std::optional<QueueOffset> ProcessQueue::remove(const std::vector<MessageExt>& msgs) {
  if (!max_cached_) return std::nullopt;
  for (const MessageExt& m : msgs) {
    auto it = msgs_.find(m.queue_offset);
    if (it == msgs_.end()) continue;
    body_bytes_ -= it->second.body_bytes;
    msgs_.erase(it);
  }
  if (!msgs_.empty()) return msgs_.begin()->first;
  return *max_cached_ + 1;
}

void ProcessQueue::mark_consume_started(std::shared_ptr<const std::vector<MessageExt>> call_msgs, MonoTime now) {
  FERRY_ASSERT(call_msgs != nullptr, "mark_consume_started without the call's messages on {}", mq_.to_string());
  for (std::size_t i = 0; i < call_msgs->size(); ++i) {
    auto it = msgs_.find((*call_msgs)[i].queue_offset);
    if (it == msgs_.end()) continue;
    it->second.call = call_msgs;
    it->second.index = i;
    it->second.started = now;
  }
}

std::optional<MessageExt> ProcessQueue::expired_first(MonoTime now, Duration timeout) const {
  if (msgs_.empty()) return std::nullopt;
  const Slot& first = msgs_.begin()->second;
  if (!first.started || now - *first.started <= timeout) return std::nullopt;
  if (first.msg) return *first.msg;
  if (first.call && first.index < first.call->size()) return (*first.call)[first.index];
  return std::nullopt;
}

std::vector<MessageExt> ProcessQueue::take(std::size_t n) {
  std::vector<MessageExt> out;
  while (out.size() < n && !msgs_.empty()) {
    auto it = msgs_.begin();
    FERRY_ASSERT(it->second.msg.has_value(), "take() of offset {} of {}: tracked, not cached (concurrent consumption)",
                 it->first, mq_.to_string());
    out.push_back(*it->second.msg);
    consuming_.emplace(it->first, std::move(*it->second.msg));
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
    account(it->second, -1);  // its bytes move from the consuming set's count to the cache's
    consuming_.erase(it);
    Slot& slot = cache(m);
    slot.msg = std::move(m);
  }
}

}  // namespace ferry::client
