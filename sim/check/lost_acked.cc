#include "sim/check/lost_acked.h"

#include <fmt/format.h>

#include <map>
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

Verdict check_lost_acked(const History& h) {
  Verdict v;
  v.name = "lost-acked";
  // The topics each group subscribed to or consumed. A message consumed from the group's retry topic counts for
  // its own topic: records are matched by the producer and sequence its body names.
  std::map<std::string, std::set<std::string>> topics_of_group = h.subscriptions;
  for (const ConsumeRecord& c : h.consumes) topics_of_group[c.group].insert(c.topic);
  std::int64_t lost = 0;
  for (const auto& [group, topics] : topics_of_group) {
    for (const SendRecord* s : acked_not_consumed(h, group, topics)) {
      ++lost;
      v.violation(fmt::format("{} acknowledged at {} ms as {} offset {} was never consumed by {}", s->id(), ms_of(s->done_at),
                              s->queue.to_string(), s->queue_offset.value(), group),
                  s->done_at);
    }
  }
  v.figures["acked"] = static_cast<std::int64_t>(h.acked().size());
  v.figures["lost"] = lost;
  v.figures["groups"] = static_cast<std::int64_t>(topics_of_group.size());
  v.passed = lost == 0 || !h.settings.lost_strict;
  return v;
}

}  // namespace ferry::sim::check
