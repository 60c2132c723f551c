#include "sim/history/acked_progress.h"

namespace ferry::sim {

AckedProgress AckedProgress::for_group(std::shared_ptr<const History> h, std::string group) {
  return AckedProgress(std::move(h), std::move(group), "");
}

AckedProgress AckedProgress::for_consumer(std::shared_ptr<const History> h, std::string consumer) {
  return AckedProgress(std::move(h), "", std::move(consumer));
}

void AckedProgress::take_new_records() {
  floors_.take(h_->queue_floors, floors_seen_);
  for (; takes_seen_ < h_->takes.size(); ++takes_seen_) {
    const TakeRecord& t = h_->takes[takes_seen_];
    if (!consumer_.empty() && t.consumer == consumer_) learn_start(starts_, t);
  }
  for (; consumes_seen_ < h_->consumes.size(); ++consumes_seen_) {
    const ConsumeRecord& c = h_->consumes[consumes_seen_];
    if (!c.intact) continue;
    if (consumer_.empty() ? c.group != group_ : c.consumer != consumer_) continue;
    consumed_.emplace(c.producer, c.seq);
    if (!consumer_.empty()) learn_start(starts_, c);
  }
}

bool AckedProgress::never_owed(const SendRecord& s) const {
  if (!s.owed() || floors_.expired(s)) return true;
  if (consumer_.empty() ? !selection_.selects_for_group(group_, s.seq, s.key)
                        : !selection_.selects_for_consumer(consumer_, s.seq, s.key)) {
    return true;  // its SQL92 subscription does not select it
  }
  if (consumer_.empty()) {
    // acked_not_consumed with the group's subscribed topics (every topic if it never subscribed).
    auto subscribed = h_->subscriptions.find(group_);
    return subscribed != h_->subscriptions.end() && subscribed->second.count(s.topic) == 0;
  }
  auto info = h_->consumers.find(consumer_);
  return info == h_->consumers.end() || s.topic != info->second.topic || s.sent_at < info->second.first_start;
}

bool AckedProgress::before_take(const SendRecord& s) const {
  if (consumer_.empty()) return false;
  auto it = starts_.find(s.queue);
  return it != starts_.end() && it->second.taken_at && before_start(starts_, s);
}

bool AckedProgress::owed(const SendRecord& s) const {
  return !never_owed(s) && (consumer_.empty() || !before_start(starts_, s));
}

std::pair<std::size_t, const SendRecord*> AckedProgress::missing() {
  take_new_records();
  const std::vector<SendRecord>& sends = h_->sends;
  auto consumed = [&](const SendRecord& s) { return consumed_.count({s.producer, s.seq}) > 0; };
  // A send still in flight (done_at unset) may yet be acknowledged: not settled.
  while (settled_ < sends.size() && sends[settled_].done_at != MonoTime{} &&
         (never_owed(sends[settled_]) || consumed(sends[settled_]) || before_take(sends[settled_]))) {
    ++settled_;
  }
  std::size_t n = 0;
  const SendRecord* first = nullptr;
  for (std::size_t i = settled_; i < sends.size(); ++i) {
    if (!owed(sends[i]) || consumed(sends[i])) continue;
    if (n++ == 0) first = &sends[i];
  }
  return {n, first};
}

}  // namespace ferry::sim
