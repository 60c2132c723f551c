#include "sim/check/key_order.h"

#include <fmt/format.h>

#include <map>
#include <set>
#include <vector>

namespace ferry::sim::check {
namespace {

using Msg = std::pair<std::string, std::uint64_t>;
using KeyOf = std::pair<std::string, std::string>;  // (producer, key)

// When each (producer, topic) route changed: every RouteRecord of the producer after its first
// (the observer records a route only when it differs from the last one it saw).
class RouteChanges {
 public:
  explicit RouteChanges(const History& h) {
    std::set<std::pair<std::string, std::string>> first_seen;
    for (const RouteRecord& r : h.routes) {
      if (!first_seen.emplace(r.observer, r.topic).second) changes_[{r.observer, r.topic}].push_back(r.at);
    }
  }

  // Whether `earlier`'s producer saw its route of the topic change after it chose `earlier`'s
  // queue and before it chose `later`'s, give or take the observers' period.
  bool between(const SendRecord& earlier, const SendRecord& later) const {
    auto it = changes_.find({earlier.producer, earlier.topic});
    if (it == changes_.end()) return false;
    for (MonoTime at : it->second) {
      if (at >= earlier.sent_at && at <= later.sent_at + kObserveEvery) return true;
    }
    return false;
  }

 private:
  std::map<std::pair<std::string, std::string>, std::vector<MonoTime>> changes_;  // in time order
};

}  // namespace

Verdict check_key_order(const History& h) {
  Verdict v;
  v.name = "key-order";
  std::map<Msg, const SendRecord*> ordered;
  std::set<KeyOf> keys;
  for (const SendRecord& s : h.sends) {
    // settings.per_key_order = true judges every acknowledged send, as if its topic were ordered.
    if ((!s.ordered && h.settings.per_key_order != true) || !s.owed()) continue;
    ordered.emplace(Msg{s.producer, s.seq}, &s);
    keys.emplace(s.producer, s.key);
  }
  const RouteChanges routes(h);
  // Per (audience, producer, key): every sequence delivered so far, with its send and first delivery.
  struct Seen {
    const SendRecord* send;
    const ConsumeRecord* first;
  };
  std::map<std::pair<std::string, KeyOf>, std::map<std::uint64_t, Seen>> progress;
  std::int64_t reorders = 0;
  std::int64_t moved_reorders = 0;
  for (const ConsumeRecord& c : h.consumes) {
    if (!c.intact) continue;
    auto it = ordered.find({c.producer, c.seq});
    if (it == ordered.end()) continue;
    const SendRecord& sent = *it->second;
    std::map<std::uint64_t, Seen>& seen = progress[{h.audience(c), KeyOf{c.producer, sent.key}}];
    if (!seen.emplace(c.seq, Seen{&sent, &c}).second) continue;  // a repeat: judged the first time
    // Every later message of the key consumed before this one: a reorder unless the key moved.
    const Seen* broken = nullptr;
    bool moved = false;
    for (auto later = seen.upper_bound(c.seq); later != seen.end(); ++later) {
      const SendRecord& l = *later->second.send;
      if (l.queue != sent.queue && routes.between(sent, l)) {
        moved = true;
        continue;
      }
      broken = &later->second;
      break;
    }
    if (broken == nullptr) {
      if (moved) ++moved_reorders;
      continue;
    }
    ++reorders;
    const ConsumeRecord& l = *broken->first;
    v.violation(fmt::format("key {} of {}: {} ({} offset {}) first consumed by {} ({}) at {} ms, after {} ({} offset {}) at {} ms{}",
                            sent.key, c.producer, c.id(), c.queue.to_string(), c.queue_offset.value(), c.consumer, c.group,
                            ms_of(c.at), l.id(), l.queue.to_string(), l.queue_offset.value(), ms_of(l.at),
                            broken->send->queue == sent.queue ? "" : " (another queue, with no route change between the sends)"),
                c.at);
  }
  v.figures["ordered_acked"] = static_cast<std::int64_t>(ordered.size());
  v.figures["keys"] = static_cast<std::int64_t>(keys.size());
  v.figures["reorders"] = reorders;
  v.figures["moved_reorders"] = moved_reorders;
  v.passed = reorders == 0 || h.settings.per_key_order == false;
  return v;
}

CheckerSpec key_order_checker() {
  return CheckerSpec{"key-order", "the acknowledged sends of one key are consumed in order while their queue stays put", true, {}, Record::sends | Record::consumes | Record::consumers | Record::routes,
                     [](const History& h, const OptionValues&) { return check_key_order(h); }};
}

}  // namespace ferry::sim::check
