#include "broker/pop_order_manager.h"

#include <algorithm>

namespace ferry::broker {

std::optional<WallMs> PopOrderManager::blocked_until(const Key& key, const std::optional<std::string>& attempt_id,
                                                     WallMs now_ms) const {
  auto it = batches_.find(key);
  if (it == batches_.end()) return std::nullopt;
  const Batch& b = it->second;
  if (attempt_id && b.attempt_id == attempt_id) return std::nullopt;
  // Blocked while any unacknowledged message is invisible (RocketMQ's OrderInfo.needBlock): until
  // the last of them becomes visible.
  std::optional<WallMs> until;
  for (const std::int64_t o : b.offsets) {
    if (b.acked.at(o)) continue;
    auto v = b.visible_at.find(o);
    const WallMs visible = v != b.visible_at.end() ? v->second : b.pop_time + b.invisible_time;
    if (now_ms < visible) until = until ? std::max(*until, visible) : visible;
  }
  return until;
}

std::map<std::int64_t, std::int32_t> PopOrderManager::handed_out(const Key& key, WallMs pop_time,
                                                                 std::int64_t invisible_time,
                                                                 const std::vector<std::int64_t>& offsets,
                                                                 const std::optional<std::string>& attempt_id) {
  Batch next;
  next.pop_time = pop_time;
  next.invisible_time = invisible_time;
  next.offsets = offsets;
  std::sort(next.offsets.begin(), next.offsets.end());
  next.attempt_id = attempt_id;
  auto it = batches_.find(key);
  for (const std::int64_t o : next.offsets) {
    next.acked[o] = false;
    std::int32_t before = 0;
    if (it != batches_.end()) {
      auto c = it->second.counts.find(o);
      if (c != it->second.counts.end()) before = c->second + 1;
    }
    next.counts[o] = before;
  }
  std::map<std::int64_t, std::int32_t> counts = next.counts;
  batches_[key] = std::move(next);
  return counts;
}

PopOrderManager::Ack PopOrderManager::ack(const Key& key, WallMs pop_time, std::int64_t offset, std::int64_t committed) {
  if (offset < committed) return Ack{AckOutcome::stale, committed};
  auto it = batches_.find(key);
  if (it == batches_.end()) {
    return offset == committed ? Ack{AckOutcome::commit, offset + 1} : Ack{AckOutcome::stale, committed};
  }
  Batch& b = it->second;
  if (b.pop_time != pop_time) return Ack{AckOutcome::stale, committed};
  auto a = b.acked.find(offset);
  if (a == b.acked.end()) return Ack{AckOutcome::illegal, committed};
  a->second = true;
  for (const std::int64_t o : b.offsets) {
    if (!b.acked.at(o)) return Ack{AckOutcome::commit, std::max(committed, o)};
  }
  const std::int64_t past = b.offsets.back() + 1;
  batches_.erase(it);  // done: the next POP starts a new batch (counts 0)
  return Ack{AckOutcome::commit, std::max(committed, past)};
}

bool PopOrderManager::change_invisible(const Key& key, WallMs pop_time, std::int64_t offset, WallMs visible_at) {
  auto it = batches_.find(key);
  if (it == batches_.end() || it->second.pop_time != pop_time || !it->second.acked.contains(offset)) return false;
  it->second.visible_at[offset] = visible_at;
  return true;
}

}  // namespace ferry::broker
