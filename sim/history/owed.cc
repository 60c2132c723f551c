#include "sim/history/owed.h"

#include <algorithm>

#include "sim/history/selection.h"

namespace ferry::sim {

void QueueFloors::take(const std::vector<QueueFloorRecord>& records, std::size_t& seen) {
  for (; seen < records.size(); ++seen) {
    QueueOffset& f = floor_[records[seen].queue];
    f = std::max(f, records[seen].min_offset);
  }
}

bool QueueFloors::expired(const SendRecord& s) const {
  if (s.fate != TxFate::none) return false;  // its queue offset is not known
  auto it = floor_.find(s.queue);
  return it != floor_.end() && s.queue_offset < it->second;
}

namespace {

QueueFloors floors_of(const History& h) {
  QueueFloors f;
  std::size_t seen = 0;
  f.take(h.queue_floors, seen);
  return f;
}

// The acknowledged sends of `topics` (all when empty) `group` did not consume; `expired` picks
// those cleanup removed (true) or the others (false).
std::vector<const SendRecord*> not_consumed(const History& h, const std::string& group, const std::set<std::string>& topics,
                                            bool expired) {
  std::set<std::pair<std::string, std::uint64_t>> consumed = h.consumed_by(group);
  const QueueFloors floors = floors_of(h);
  const Selection selection(h);
  std::vector<const SendRecord*> out;
  for (const SendRecord& s : h.sends) {
    if (!s.owed() || (!topics.empty() && topics.count(s.topic) == 0)) continue;
    if (!selection.selects_for_group(group, s.seq, s.key)) continue;
    if (consumed.count({s.producer, s.seq}) == 0 && floors.expired(s) == expired) out.push_back(&s);
  }
  return out;
}

}  // namespace

std::vector<const SendRecord*> acked_not_consumed(const History& h, const std::string& group,
                                                  const std::set<std::string>& topics) {
  return not_consumed(h, group, topics, false);
}

std::size_t expired_not_consumed(const History& h, const std::string& group, const std::set<std::string>& topics) {
  return not_consumed(h, group, topics, true).size();
}

void learn_start(std::map<MessageQueue, QueueStart>& starts, const TakeRecord& r) {
  auto [it, fresh] = starts.try_emplace(r.queue, QueueStart{r.offset, r.at});
  if (!fresh && !it->second.taken_at) it->second = QueueStart{r.offset, r.at};  // a take beats a consumption
}

void learn_start(std::map<MessageQueue, QueueStart>& starts, const ConsumeRecord& r) {
  starts.try_emplace(r.queue, QueueStart{r.queue_offset, std::nullopt});
}

bool before_start(const std::map<MessageQueue, QueueStart>& starts, const SendRecord& s) {
  if (s.fate != TxFate::none) return false;  // its queue offset is not known: owed if sent after the take
  auto it = starts.find(s.queue);
  if (it == starts.end() || !(s.queue_offset < it->second.offset)) return false;
  return !(it->second.taken_at && s.sent_at > *it->second.taken_at);
}

std::vector<const SendRecord*> acked_not_consumed_by(const History& h, const std::string& consumer) {
  std::vector<const SendRecord*> out;
  auto info = h.consumers.find(consumer);
  if (info == h.consumers.end()) return out;
  std::set<std::pair<std::string, std::uint64_t>> consumed;
  std::map<MessageQueue, QueueStart> starts;
  const QueueFloors floors = floors_of(h);
  for (const TakeRecord& t : h.takes) {
    if (t.consumer == consumer) learn_start(starts, t);
  }
  for (const ConsumeRecord& c : h.consumes) {
    if (c.consumer != consumer || !c.intact) continue;
    consumed.emplace(c.producer, c.seq);
    learn_start(starts, c);
  }
  const Selection selection(h);
  for (const SendRecord& s : h.sends) {
    if (!s.owed() || s.topic != info->second.topic || s.sent_at < info->second.first_start) continue;
    if (!selection.selects_for_consumer(consumer, s.seq, s.key)) continue;
    if (before_start(starts, s) || floors.expired(s)) continue;
    if (consumed.count({s.producer, s.seq}) == 0) out.push_back(&s);
  }
  return out;
}

}  // namespace ferry::sim
