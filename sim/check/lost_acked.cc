#include "sim/check/lost_acked.h"

#include <fmt/format.h>

#include <map>
#include <optional>
#include <set>

namespace ferry::sim::check {

std::vector<const SendRecord*> acked_not_consumed(const History& h, const std::string& group, const std::set<std::string>& topics) {
  std::set<std::pair<std::string, std::uint64_t>> consumed = h.consumed_by(group);
  std::vector<const SendRecord*> out;
  for (const SendRecord& s : h.sends) {
    if (s.outcome != SendOutcome::ok || (!topics.empty() && topics.count(s.topic) == 0)) continue;
    if (consumed.count({s.producer, s.seq}) == 0) out.push_back(&s);
  }
  return out;
}

void learn_start(std::map<MessageQueue, QueueStart>& starts, const TakeRecord& r) {
  auto [it, fresh] = starts.try_emplace(r.queue, QueueStart{r.offset, r.at});
  if (!fresh && !it->second.taken_at) it->second = QueueStart{r.offset, r.at};  // a take beats a consumption
}

void learn_start(std::map<MessageQueue, QueueStart>& starts, const ConsumeRecord& r) {
  starts.try_emplace(r.queue, QueueStart{r.queue_offset, std::nullopt});
}

bool before_start(const std::map<MessageQueue, QueueStart>& starts, const SendRecord& s) {
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
  for (const TakeRecord& t : h.takes) {
    if (t.consumer == consumer) learn_start(starts, t);
  }
  for (const ConsumeRecord& c : h.consumes) {
    if (c.consumer != consumer || !c.intact) continue;
    consumed.emplace(c.producer, c.seq);
    learn_start(starts, c);
  }
  for (const SendRecord& s : h.sends) {
    if (s.outcome != SendOutcome::ok || s.topic != info->second.topic || s.sent_at < info->second.first_start) continue;
    if (before_start(starts, s)) continue;
    if (consumed.count({s.producer, s.seq}) == 0) out.push_back(&s);
  }
  return out;
}

Verdict check_lost_acked(const History& h) {
  Verdict v;
  v.name = "lost-acked";
  // The topics each group subscribed to or consumed. A message consumed from the group's retry topic counts for
  // its own topic: records are matched by the producer and sequence its body names.
  std::map<std::string, std::set<std::string>> topics_of_group = h.subscriptions;
  for (const ConsumeRecord& c : h.consumes) topics_of_group[c.group].insert(c.topic);
  std::int64_t lost = 0, broadcast_consumers = 0;
  for (const auto& [group, topics] : topics_of_group) {
    if (h.broadcast_group(group)) continue;  // judged per consumer below
    for (const SendRecord* s : acked_not_consumed(h, group, topics)) {
      ++lost;
      v.violation(fmt::format("{} acknowledged at {} ms as {} offset {} was never consumed by {}", s->id(), ms_of(s->done_at),
                              s->queue.to_string(), s->queue_offset.value(), group),
                  s->done_at);
    }
  }
  for (const auto& [name, info] : h.consumers) {
    if (!info.broadcast || info.left_at) continue;
    ++broadcast_consumers;
    for (const SendRecord* s : acked_not_consumed_by(h, name)) {
      ++lost;
      v.violation(fmt::format("{} acknowledged at {} ms as {} offset {} was never consumed by broadcast consumer {} ({})", s->id(),
                              ms_of(s->done_at), s->queue.to_string(), s->queue_offset.value(), name, info.group));
    }
  }
  v.figures["broadcast_consumers"] = broadcast_consumers;
  v.figures["acked"] = static_cast<std::int64_t>(h.acked().size());
  v.figures["lost"] = lost;
  v.figures["groups"] = static_cast<std::int64_t>(topics_of_group.size());
  v.passed = lost == 0 || !h.settings.lost_strict;
  return v;
}

}  // namespace ferry::sim::check
