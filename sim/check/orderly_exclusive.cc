#include "sim/check/orderly_exclusive.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <string>
#include <utility>

namespace ferry::sim::check {

namespace {

// One consumer's holding of a queue: the lock confirmation and the deliveries under it, merged
// while the confirmation time stays the same (a renewal starts a new interval).
struct Holding {
  std::string consumer;
  MonoTime from{};
  MonoTime to{};
  const ConsumeRecord* last = nullptr;  // the delivery that ends the interval
};

}  // namespace

Verdict check_orderly_exclusive(const History& h) {
  Verdict v;
  v.name = "orderly-exclusive";
  // (group, queue) -> holding intervals, in the order their deliveries were recorded.
  std::map<std::pair<std::string, MessageQueue>, std::vector<Holding>> queues;
  std::int64_t deliveries = 0;
  for (const ConsumeRecord& c : h.consumes) {
    if (!c.lock_at) continue;
    ++deliveries;
    std::vector<Holding>& held = queues[{c.group, c.queue}];
    // The same consumer under the same confirmation: the interval grows.
    auto same = std::find_if(held.rbegin(), held.rend(),
                             [&](const Holding& x) { return x.consumer == c.consumer && x.from == *c.lock_at; });
    if (same != held.rend()) {
      if (c.at > same->to) {
        same->to = c.at;
        same->last = &c;
      }
      continue;
    }
    held.push_back(Holding{c.consumer, *c.lock_at, c.at, &c});
  }
  std::int64_t overlaps = 0;
  for (auto& [key, held] : queues) {
    std::sort(held.begin(), held.end(), [](const Holding& a, const Holding& b) {
      return a.from != b.from ? a.from < b.from : a.consumer < b.consumer;
    });
    // Sorted by start: each interval is compared with the ones that start before it ends.
    for (std::size_t i = 0; i < held.size(); ++i) {
      for (std::size_t j = i + 1; j < held.size() && held[j].from + kOrderlyOverlapSlack < held[i].to; ++j) {
        const Holding& a = held[i];
        const Holding& b = held[j];
        if (a.consumer == b.consumer) continue;
        const MonoTime start = std::max(a.from, b.from), end = std::min(a.to, b.to);
        if (end - start <= kOrderlyOverlapSlack) continue;
        ++overlaps;
        v.violation(fmt::format("{} of group {}: {} held it (lock confirmed at {} ms, consumed {} at {} ms) while {} held it (lock "
                                "confirmed at {} ms, consumed {} at {} ms): {} ms of both processing it",
                                key.second.to_string(), key.first, a.consumer, ms_of(a.from), a.last->id(), ms_of(a.to), b.consumer,
                                ms_of(b.from), b.last->id(), ms_of(b.to), ms_of(end) - ms_of(start)),
                    end);
      }
    }
  }
  v.figures["orderly_deliveries"] = deliveries;
  v.figures["queues"] = static_cast<std::int64_t>(queues.size());
  v.figures["overlaps"] = overlaps;
  v.passed = overlaps == 0;
  return v;
}

CheckerSpec orderly_exclusive_checker() {
  return CheckerSpec{"orderly-exclusive", "no two orderly consumers of a group process one queue at the same time", true, {}, Records(Record::consumes),
                     [](const History& h, const OptionValues&) { return check_orderly_exclusive(h); }};
}

}  // namespace ferry::sim::check
