#include "sim/check/offset_persistence.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <vector>

namespace ferry::sim::check {

namespace {

using Msg = std::pair<std::string, std::uint64_t>;

// The first of `crashes` between the first delivery and the redelivery (`first` <= at <= `to`)
// that came at most `window` after the first delivery.
const Event* explaining_crash(const std::vector<const Event*>& crashes, MonoTime first, MonoTime to, Duration window) {
  for (const Event* e : crashes) {
    if (e->at < first || e->at > to) continue;
    if (first >= e->at - window) return e;
  }
  return nullptr;
}

}  // namespace

Verdict check_offset_persistence(const History& h, const OffsetPersistenceBounds& b) {
  Verdict v;
  v.name = "offset_persistence";
  const Duration interval = std::chrono::milliseconds(b.persist_interval_ms);
  const Duration slack = std::chrono::milliseconds(b.slack_ms);
  std::map<std::string, std::vector<const Event*>> crashes;     // node -> its crash events
  std::map<std::string, std::vector<const Event*>> rebalances;  // consumer -> "took ... again"
  for (const Event& e : h.events) {
    if (e.kind == EventKind::crash) crashes[e.target].push_back(&e);
    if (e.kind == EventKind::rebalance) rebalances[e.target].push_back(&e);
  }
  std::int64_t crash_count = 0;
  std::set<std::string> consumers;
  for (const ConsumeRecord& c : h.consumes) consumers.insert(c.consumer);
  for (const auto& [node, list] : crashes) {
    // Consumers and the masters of the groups messages were consumed from.
    bool relevant = consumers.count(node) > 0;
    for (const ConsumeRecord& c : h.consumes) {
      if (relevant) break;
      relevant = c.queue.broker_name == node;
    }
    if (relevant) crash_count += static_cast<std::int64_t>(list.size());
  }

  std::map<std::pair<std::string, Msg>, const ConsumeRecord*> first;             // (group, msg) -> first delivery
  std::map<std::pair<std::string, MessageQueue>, MonoTime> tenure;               // (consumer, queue) -> since
  std::map<std::pair<std::string, MessageQueue>, std::string> last_consumer_of;  // (group, queue) -> consumer
  std::int64_t consumed = 0, redelivered = 0, by_consumer = 0, by_broker = 0, by_rebalance = 0, by_retry = 0, unexplained = 0;
  std::int64_t stored_twice = 0;
  std::int64_t oldest = 0;
  static const std::vector<const Event*> kNone;
  auto events_of = [](const std::map<std::string, std::vector<const Event*>>& m, const std::string& k) -> const std::vector<const Event*>& {
    auto it = m.find(k);
    return it == m.end() ? kNone : it->second;
  };
  for (const ConsumeRecord& c : h.consumes) {
    if (!c.intact) continue;
    ++consumed;
    // A consumer's tenure on a queue starts when it consumes from it after someone else did.
    auto [holder, fresh_queue] = last_consumer_of.try_emplace({c.group, c.queue}, c.consumer);
    if (fresh_queue || holder->second != c.consumer) {
      holder->second = c.consumer;
      tenure[{c.consumer, c.queue}] = c.at;
    }
    auto [it, fresh] = first.try_emplace({c.group, Msg{c.producer, c.seq}}, &c);
    if (fresh) continue;
    const ConsumeRecord& f = *it->second;
    // Another stored copy (a send retried after an unknown outcome stored it twice: the
    // duplicates checker counts those), not the same message read again.
    if (c.queue != f.queue || c.queue_offset != f.queue_offset) {
      ++stored_twice;
      continue;
    }
    ++redelivered;
    if (c.reconsume_times > 0) {
      ++by_retry;
      continue;
    }
    if (const Event* e = explaining_crash(events_of(crashes, f.consumer), f.at, c.at, interval + slack)) {
      ++by_consumer;
      oldest = std::max(oldest, to_ms(e->at - f.at));
      continue;
    }
    if (const Event* e = explaining_crash(events_of(crashes, f.queue.broker_name), f.at, c.at, 2 * interval + slack)) {
      ++by_broker;
      oldest = std::max(oldest, to_ms(e->at - f.at));
      continue;
    }
    if (c.consumer != f.consumer) {
      const MonoTime since = tenure[{c.consumer, c.queue}];
      if (f.at >= since - interval - slack) {
        ++by_rebalance;
        oldest = std::max<std::int64_t>(oldest, std::max<std::int64_t>(0, to_ms(since - f.at)));
        continue;
      }
    } else if (const Event* e = explaining_crash(events_of(rebalances, f.consumer), f.at, c.at, interval + slack)) {
      ++by_rebalance;
      oldest = std::max(oldest, to_ms(e->at - f.at));
      continue;
    }
    ++unexplained;
    v.violation(fmt::format("{} first consumed by {} at {} ms from {} offset {} was redelivered to {} at {} ms: no crash or rebalance "
                            "within {} ms after the first delivery explains it",
                            c.id(), f.consumer, ms_of(f.at), f.queue.to_string(), f.queue_offset.value(), c.consumer, ms_of(c.at),
                            to_ms(interval + slack)),
                c.at);
  }
  v.figures["consumed"] = consumed;
  v.figures["redelivered"] = redelivered;
  v.figures["stored_twice"] = stored_twice;
  v.figures["explained_consumer_crash"] = by_consumer;
  v.figures["explained_broker_crash"] = by_broker;
  v.figures["explained_rebalance"] = by_rebalance;
  v.figures["explained_retry"] = by_retry;
  v.figures["unexplained"] = unexplained;
  v.figures["crashes"] = crash_count;
  v.figures["oldest_redelivered_ms"] = oldest;
  v.passed = v.violations == 0;
  return v;
}

namespace {
constexpr Duration kHour = std::chrono::hours(1);
}  // namespace

CheckerSpec offset_persistence_checker() {
  return CheckerSpec{
      "offset_persistence",
      "after a consumer or broker crash, redeliveries stay within what was consumed in the last persist interval",
      false,
      {
          {.name = "persist_interval", .default_value = Duration(std::chrono::seconds(5)),
           .story = "the consumers' persistConsumerOffsetInterval (the broker's flushConsumerOffsetInterval is the same 5 s)",
           .min_duration = std::chrono::milliseconds(1), .max_duration = kHour},
          {.name = "slack", .default_value = Duration(std::chrono::seconds(1)),
           .story = "tolerance on each window's edge (a pull or commit in flight)", .max_duration = kHour},
      },
      Record::consumes | Record::events,
      [](const History& h, const OptionValues& o) {
        return check_offset_persistence(h, OffsetPersistenceBounds{option_ms(o, "persist_interval"), option_ms(o, "slack")});
      }};
}

}  // namespace ferry::sim::check
