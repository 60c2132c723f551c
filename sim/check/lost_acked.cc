#include "sim/check/lost_acked.h"

#include <fmt/format.h>

#include <map>
#include <optional>
#include <set>

namespace ferry::sim::check {

Verdict check_lost_acked(const History& h) {
  Verdict v;
  v.name = "lost-acked";
  // The topics each group subscribed to or consumed. A message consumed from the group's retry topic counts for
  // its own topic: records are matched by the producer and sequence its body names.
  std::map<std::string, std::set<std::string>> topics_of_group = h.subscriptions;
  for (const ConsumeRecord& c : h.consumes) topics_of_group[c.group].insert(c.topic);
  std::int64_t lost = 0, broadcast_consumers = 0, expired = 0;
  for (const auto& [group, topics] : topics_of_group) {
    if (h.broadcast_group(group)) continue;  // judged per consumer below
    expired += static_cast<std::int64_t>(expired_not_consumed(h, group, topics));
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
  v.figures["expired"] = expired;
  v.figures["groups"] = static_cast<std::int64_t>(topics_of_group.size());
  v.passed = lost == 0 || !h.settings.lost_strict;
  return v;
}

CheckerSpec lost_acked_checker() {
  return CheckerSpec{"lost-acked", "every message acknowledged with SEND_OK is consumed, intact, by every group and broadcast consumer that owes it", true, {}, Record::sends | Record::consumes | Record::subscriptions | Record::consumers | Record::takes |
                         Record::queue_floors,
                     [](const History& h, const OptionValues&) { return check_lost_acked(h); }};
}

}  // namespace ferry::sim::check
