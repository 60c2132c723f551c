#include "sim/check/pop_fifo.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "sim/check/clock_margin.h"
#include "sim/check/pop_explanations.h"

namespace ferry::sim::check {

namespace {

// The messages of one queue in one POP reply.
struct Batch {
  std::string consumer;
  MonoTime requested_at{};
  MonoTime arrived_at{};
  MonoTime invisible_until{};
  std::vector<std::uint64_t> deliveries;  // indexes into History::consumes, ascending offset
};

// A before B, certainly: A's reply arrived before B's POP went out, on either consumer's clock.
bool certainly_before(MonoTime a_arrived, MonoTime b_requested) { return a_arrived + clock_margin(b_requested) <= b_requested; }

// Only what another master changes: a promotion, or a controller naming another master.
std::vector<PopExplanation> failovers(const History& h) {
  std::vector<PopExplanation> out;
  for (const Event& e : h.events) {
    if (e.kind == EventKind::promote) out.push_back(PopExplanation{e.at, e.target});
  }
  std::map<std::pair<std::string, std::string>, std::string> master;  // (controller, group) -> master
  for (const ControllerViewRecord& v : h.controller_views) {
    auto [it, fresh] = master.try_emplace({v.controller, v.group}, v.master);
    if (!fresh && it->second != v.master) out.push_back(PopExplanation{v.at, v.group});
    it->second = v.master;
  }
  return out;
}

}  // namespace

Verdict check_pop_fifo(const History& h) {
  Verdict v;
  v.name = "pop-fifo";
  std::set<std::string> fifo_groups;
  for (const auto& [name, info] : h.consumers) {
    if (info.kind == "pop-fifo") fifo_groups.insert(info.group);
  }
  // When each delivery's first ack went out.
  std::map<std::uint64_t, MonoTime> acked_at;
  for (const PopAckRecord& a : h.pop_acks) {
    auto [it, fresh] = acked_at.try_emplace(a.consume, a.sent_at);
    if (!fresh) it->second = std::min(it->second, a.sent_at);
  }
  // Per (group, queue): the batches, and each offset's deliveries.
  using QueueKey = std::pair<std::string, MessageQueue>;
  std::map<QueueKey, std::map<std::pair<std::string, MonoTime>, Batch>> batches;
  std::map<QueueKey, std::map<std::int64_t, std::vector<std::uint64_t>>> by_offset;
  for (std::uint64_t i = 0; i < h.consumes.size(); ++i) {
    const ConsumeRecord& c = h.consumes[i];
    if (!c.pop || fifo_groups.count(c.group) == 0) continue;
    const QueueKey key{c.group, c.queue};
    Batch& b = batches[key][{c.consumer, c.pop->requested_at}];
    b.consumer = c.consumer;
    b.requested_at = c.pop->requested_at;
    b.arrived_at = std::max(b.arrived_at, c.at);
    b.invisible_until = c.pop->invisible_until;
    b.deliveries.push_back(i);
    by_offset[key][c.queue_offset.value()].push_back(i);
  }
  // Whether one of an offset's deliveries had an ack sent before `t` (another consumer's clock:
  // less clock_margin).
  auto acked_before = [&](const std::vector<std::uint64_t>& deliveries, MonoTime t) {
    return std::any_of(deliveries.begin(), deliveries.end(), [&](std::uint64_t d) {
      auto it = acked_at.find(d);
      return it != acked_at.end() && it->second < t + clock_margin(t);
    });
  };
  const std::vector<PopExplanation> explaining = pop_explanations(h);
  const std::vector<PopExplanation> failing_over = failovers(h);
  std::int64_t count = 0, skipped = 0, overlapped = 0, excused = 0;
  for (const auto& [key, list] : batches) {
    const auto& [group, queue] = key;
    const auto& offsets = by_offset.at(key);
    for (const auto& [bk, b] : list) {
      ++count;
      std::set<std::int64_t> mine;
      for (std::uint64_t d : b.deliveries) mine.insert(h.consumes[d].queue_offset.value());
      const std::int64_t first = *mine.begin();
      const std::string what = fmt::format("{} handed {} offsets {}..{} of {} (POP sent at {} ms, arrived at {} ms)", group, b.consumer, first,
                                           *mine.rbegin(), queue.to_string(), ms_of(b.requested_at), ms_of(b.arrived_at));
      // Skipped: an offset below the batch's first the group had not finished.
      for (auto it = offsets.begin(); it != offsets.end() && it->first < first; ++it) {
        const std::int64_t o = it->first;
        bool before = false, after = true;
        MonoTime since = b.requested_at;
        for (std::uint64_t d : it->second) {
          const ConsumeRecord& c = h.consumes[d];
          if (certainly_before(c.at, b.requested_at)) {
            before = true;
            since = std::min(since, c.pop->requested_at);
          }
          if (!certainly_before(b.arrived_at, c.pop->requested_at)) after = false;
        }
        std::string why;
        if (before && !acked_before(it->second, b.arrived_at)) {
          why = fmt::format("offset {}, handed out before it, was not acknowledged", o);
        } else if (!before && after) {
          why = fmt::format("offset {} was handed out only after it", o);
          since = h.consumes[it->second.front()].pop->requested_at;
          since = std::min(since, b.requested_at);
        } else {
          continue;
        }
        if (pop_explained_between(failing_over, queue.broker_name, since, b.arrived_at)) {
          ++excused;
          continue;
        }
        ++skipped;
        v.violation(fmt::format("{}: skipped, {}", what, why), b.arrived_at);
        break;
      }
      // Overlapped: an earlier batch of the queue still out, unacknowledged and invisible.
      for (const auto& [ak, a] : list) {
        if (&a == &b || !certainly_before(a.arrived_at, b.requested_at)) continue;
        if (a.invisible_until <= b.arrived_at + clock_margin(b.arrived_at) + clock_margin(a.invisible_until)) continue;
        const auto open = std::find_if(a.deliveries.begin(), a.deliveries.end(), [&](std::uint64_t d) {
          return !acked_before(offsets.at(h.consumes[d].queue_offset.value()), b.arrived_at);
        });
        if (open == a.deliveries.end()) continue;
        if (pop_explained_between(explaining, queue.broker_name, a.requested_at, b.arrived_at)) {
          ++excused;
          continue;
        }
        ++overlapped;
        v.violation(fmt::format("{}: overlapped, offset {} handed to {} at {} ms was unacknowledged and invisible until {} ms", what,
                                h.consumes[*open].queue_offset.value(), a.consumer, ms_of(a.arrived_at), ms_of(a.invisible_until)),
                    b.arrived_at);
        break;
      }
    }
  }
  v.figures["fifo_groups"] = static_cast<std::int64_t>(fifo_groups.size());
  v.figures["batches"] = count;
  v.figures["skipped"] = skipped;
  v.figures["overlapped"] = overlapped;
  v.figures["excused"] = excused;
  v.passed = skipped == 0 && overlapped == 0;
  return v;
}

CheckerSpec pop_fifo_checker() {
  return CheckerSpec{"pop-fifo",
                     "a FIFO POP group gets one batch of a queue at a time, from the first message it has not acknowledged",
                     true,
                     {},
                     Record::consumes | Record::consumers | Record::events | Record::pop_acks | Record::controller_views,
                     [](const History& h, const OptionValues&) { return check_pop_fifo(h); }};
}

}  // namespace ferry::sim::check
