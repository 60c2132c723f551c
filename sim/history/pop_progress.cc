#include "sim/history/pop_progress.h"

#include <iterator>

namespace ferry::sim {

std::pair<std::size_t, const ConsumeRecord*> PopProgress::unsettled() {
  const auto held = h_->hold();
  // Acks first: an ack is recorded after its delivery, and before any later delivery of the same
  // message that it did not keep from coming back.
  for (; acks_seen_ < h_->pop_acks.size(); ++acks_seen_) {
    const std::uint64_t i = h_->pop_acks[acks_seen_].consume;
    if (i >= h_->consumes.size()) continue;
    acked_.insert(i);
    const ConsumeRecord& c = h_->consumes[i];
    auto it = latest_.find(Key{c.producer, c.seq});
    if (it != latest_.end() && it->second == i) open_.erase(it->first);
  }
  for (; consumes_seen_ < h_->consumes.size(); ++consumes_seen_) {
    const ConsumeRecord& c = h_->consumes[consumes_seen_];
    if (!c.pop || !c.intact || c.group != group_) continue;
    const Key key{c.producer, c.seq};
    // Latest as the broker handed them out (pop_order): a reply held up (a paused consumer)
    // arrives after deliveries of the message that the broker made later.
    auto [it, fresh] = latest_.try_emplace(key, consumes_seen_);
    if (!fresh) {
      if (pop_order(c, h_->consumes[it->second])) continue;
      it->second = consumes_seen_;
    }
    if (acked_.count(consumes_seen_) > 0 || c.reconsume_times >= retry_max_) {
      open_.erase(key);
    } else {
      open_.insert(key);
    }
  }
  // Excused: a message whose broker logged an error since its latest delivery (a failed disk
  // stores no revive until a restart, and may have lost the checkpoint): pop-delivery counts it.
  for (auto it = open_.begin(); it != open_.end();) {
    const ConsumeRecord& c = h_->consumes[latest_.at(*it)];
    it = broker_logged_error_since(*h_, c.queue.broker_name, c.pop->requested_at) ? open_.erase(it) : std::next(it);
  }
  if (open_.empty()) return {0, nullptr};
  return {open_.size(), &h_->consumes[latest_.at(*open_.begin())]};
}

}  // namespace ferry::sim
