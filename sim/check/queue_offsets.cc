#include "sim/check/queue_offsets.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>

namespace ferry::sim::check {

namespace {

// True when an event happened in [from, to].
bool event_between(const std::vector<MonoTime>& event_times, MonoTime from, MonoTime to) {
  auto it = std::lower_bound(event_times.begin(), event_times.end(), from);
  return it != event_times.end() && *it <= to;
}

}  // namespace

Verdict check_queue_offsets(const History& h) {
  Verdict v;
  v.name = "queue-offsets";
  std::vector<MonoTime> event_times;
  for (const Event& e : h.events) event_times.push_back(e.at);
  std::sort(event_times.begin(), event_times.end());
  struct Last {
    const ConsumeRecord* record = nullptr;
    std::set<std::int64_t> offsets;
    std::map<std::int64_t, MonoTime> first_at;  // offset -> when it was first consumed
  };
  std::map<std::pair<std::string, MessageQueue>, Last> queues;
  std::int64_t explained = 0, unexplained = 0;
  // A push consumer's concurrent listener consumes a pulled batch on several threads (RocketMQ's
  // consumeThreadMin): its deliveries of one queue come in any order, so for it only an offset
  // consumed again is a step back. (The simulator runs listeners inline, in order; real runs do
  // not: `mqsim run --real`.) A POP consumer runs several receives at once, whose replies come
  // in any order, too.
  auto concurrent = [&h](const ConsumeRecord& c) {
    auto it = h.consumers.find(c.consumer);
    return it != h.consumers.end() && (it->second.kind == "push-concurrently" || it->second.kind == "pop");
  };
  auto fifo_pop = [&h](const ConsumeRecord& c) {
    auto it = h.consumers.find(c.consumer);
    return it != h.consumers.end() && it->second.kind == "pop-fifo";
  };
  for (const ConsumeRecord& c : h.consumes) {
    Last& q = queues[{h.audience(c), c.queue}];
    q.offsets.insert(c.queue_offset.value());
    const auto [first, fresh] = q.first_at.try_emplace(c.queue_offset.value(), c.at);
    const bool repeat = !fresh;
    const ConsumeRecord* prev = q.record;
    if (prev == nullptr || c.queue_offset > prev->queue_offset || (!repeat && concurrent(c))) {
      if (prev == nullptr || c.queue_offset > prev->queue_offset) q.record = &c;
      continue;
    }
    q.record = &c;
    // A FIFO POP group gets a batch it left unacknowledged again from the same queue once its
    // invisible time is over: pop-delivery judges when it may come back, pop-fifo the order.
    if (repeat && fifo_pop(c)) {
      ++explained;
      continue;
    }
    // A concurrent consumer's repeat: its deliveries arrive in any order, so what explains it lies
    // between the offset's first delivery and this one (a POP reply may arrive long after a later
    // one, handed out after a restart that rolled the offset back).
    const MonoTime since = repeat && concurrent(c) ? std::min(first->second, prev->at) : prev->at;
    if (prev->consumer != c.consumer || event_between(event_times, since, c.at)) {
      ++explained;
      continue;
    }
    ++unexplained;
    v.violation(fmt::format("{} offset {} ({}) consumed by {} ({}) at {} ms after offset {} ({}) at {} ms, with no crash, restart or "
                            "rebalance recorded between",
                            c.queue.to_string(), c.queue_offset.value(), c.id(), c.consumer, c.group, ms_of(c.at),
                            prev->queue_offset.value(), prev->id(), ms_of(prev->at)),
                c.at);
  }
  // An SQL92 subscription skips what it does not select: its queues have holes by design.
  std::set<std::string> selective;
  for (const auto& [name, info] : h.consumers) {
    if (!info.sql.empty()) selective.insert({name, info.group});
  }
  std::int64_t holes = 0;
  for (const auto& [gq, q] : queues) {
    if (selective.count(gq.first) > 0) continue;
    const std::int64_t lo = *q.offsets.begin(), hi = *q.offsets.rbegin();
    const std::int64_t missing = (hi - lo + 1) - static_cast<std::int64_t>(q.offsets.size());
    if (missing == 0) continue;
    holes += missing;
    if (!h.settings.offsets_dense) continue;
    std::int64_t first_hole = lo;
    while (q.offsets.count(first_hole) > 0) ++first_hole;
    // Its time: when the offset after the first hole was consumed (the hole was skipped then).
    const auto after_hole = q.first_at.upper_bound(first_hole);
    v.violation(fmt::format("{} ({}): {} offsets between {} and {} never delivered, the first {}", gq.second.to_string(), gq.first,
                            missing, lo, hi, first_hole),
                after_hole->second);
  }
  v.figures["queues"] = static_cast<std::int64_t>(queues.size());
  v.figures["backward_explained"] = explained;
  v.figures["backward_unexplained"] = unexplained;
  v.figures["holes"] = holes;
  v.passed = unexplained == 0 && (holes == 0 || !h.settings.offsets_dense);
  return v;
}

CheckerSpec queue_offsets_checker() {
  return CheckerSpec{"queue-offsets", "a queue's consumed offsets go back only when an event or a rebalance explains it (dense with offsets_dense)", true, {}, Record::consumes | Record::consumers | Record::events,
                     [](const History& h, const OptionValues&) { return check_queue_offsets(h); }};
}

}  // namespace ferry::sim::check
