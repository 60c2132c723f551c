#include "sim/check/lost_acked.h"

#include <fmt/format.h>

#include <map>
#include <set>

namespace ferry::sim::check {

Verdict check_lost_acked(const History& h) {
  Verdict v;
  v.name = "lost-acked";
  // The topics each group consumed (a retry topic's messages count for the topic they came from:
  // the body names the producer and the sequence, so the record is matched by those).
  std::map<std::string, std::set<std::string>> topics_of_group;
  std::map<std::string, std::set<std::pair<std::string, std::uint64_t>>> consumed;
  for (const ConsumeRecord& c : h.consumes) {
    topics_of_group[c.group].insert(c.topic);
    if (c.intact) consumed[c.group].emplace(c.producer, c.seq);
  }
  std::int64_t acked = 0, lost = 0;
  for (const SendRecord& s : h.sends) {
    if (s.outcome != SendOutcome::ok) continue;
    ++acked;
    for (const auto& [group, topics] : topics_of_group) {
      if (topics.count(s.topic) == 0) continue;
      if (consumed[group].count({s.producer, s.seq}) > 0) continue;
      ++lost;
      v.violation(fmt::format("{} acknowledged at {} ms as {} offset {} was never consumed by {}", s.id(), ms_of(s.done_at),
                              s.queue.to_string(), s.queue_offset.value(), group));
    }
  }
  v.figures["acked"] = acked;
  v.figures["lost"] = lost;
  v.figures["groups"] = static_cast<std::int64_t>(topics_of_group.size());
  v.passed = lost == 0 || !h.settings.lost_strict;
  return v;
}

}  // namespace ferry::sim::check
