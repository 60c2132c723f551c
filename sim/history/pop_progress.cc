#include "sim/history/pop_progress.h"

#include <algorithm>

namespace ferry::sim {

namespace {

bool from_retry_topic(const ConsumeRecord& c) { return c.queue.topic.rfind("%RETRY%", 0) == 0; }

// Whether `done` came after `open`: handed out later (pop_order), or a retry copy with more
// reconsumes that arrived once `open`'s invisible time was over (it may have been revived from
// `open`, whenever its own POP went out; two consumers' clocks drift apart by up to 500 ppm).
bool came_after(const ConsumeRecord& open, const ConsumeRecord& done) {
  if (pop_order(open, done)) return true;
  const Duration drift = std::chrono::duration_cast<Duration>(done.at.time_since_epoch() / 1000) + std::chrono::milliseconds(1);
  return from_retry_topic(done) && done.reconsume_times > open.reconsume_times && done.at + drift >= open.pop->invisible_until;
}

}  // namespace

std::optional<std::uint64_t> PopProgress::open_delivery(const Key& key) const {
  const std::vector<std::uint64_t>& list = deliveries_.at(key);
  auto finished = [&](std::uint64_t i) { return acked_.count(i) > 0 || h_->consumes[i].reconsume_times >= retry_max_; };
  std::optional<std::uint64_t> keeping;
  for (std::uint64_t u : list) {
    if (finished(u)) continue;
    const ConsumeRecord& open = h_->consumes[u];
    const bool after = std::any_of(list.begin(), list.end(),
                                   [&](std::uint64_t d) { return finished(d) && came_after(open, h_->consumes[d]); });
    // Excused: its broker logged an error since (a failed disk stores no revive until a restart,
    // and may have lost the checkpoint): pop-delivery counts it.
    if (after || broker_logged_error_since(*h_, open.queue.broker_name, open.pop->requested_at)) continue;
    if (!keeping || pop_order(h_->consumes[*keeping], open)) keeping = u;
  }
  return keeping;
}

std::pair<std::size_t, const ConsumeRecord*> PopProgress::unsettled() {
  const auto held = h_->hold();
  std::set<Key> touched;
  for (; acks_seen_ < h_->pop_acks.size(); ++acks_seen_) {
    const std::uint64_t i = h_->pop_acks[acks_seen_].consume;
    if (i >= h_->consumes.size()) continue;
    acked_.insert(i);
    const ConsumeRecord& c = h_->consumes[i];
    if (c.pop && c.intact && c.group == group_) touched.insert(Key{c.producer, c.seq});
  }
  for (; consumes_seen_ < h_->consumes.size(); ++consumes_seen_) {
    const ConsumeRecord& c = h_->consumes[consumes_seen_];
    if (!c.pop || !c.intact || c.group != group_) continue;
    const Key key{c.producer, c.seq};
    deliveries_[key].push_back(consumes_seen_);
    touched.insert(key);
  }
  // An open message may settle without a new record of its own: a broker's error line.
  for (const auto& [key, index] : open_) touched.insert(key);
  for (const Key& key : touched) {
    if (std::optional<std::uint64_t> open = open_delivery(key)) {
      open_[key] = *open;
    } else {
      open_.erase(key);
    }
  }
  if (open_.empty()) return {0, nullptr};
  return {open_.size(), &h_->consumes[open_.begin()->second]};
}

}  // namespace ferry::sim
