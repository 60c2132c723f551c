#include "sim/check/key_order.h"

#include <fmt/format.h>

#include <map>
#include <set>

namespace ferry::sim::check {

Verdict check_key_order(const History& h) {
  Verdict v;
  v.name = "key-order";
  using Msg = std::pair<std::string, std::uint64_t>;
  using KeyOf = std::pair<std::string, std::string>;  // (producer, key)
  std::map<Msg, const SendRecord*> ordered;
  std::set<KeyOf> keys;
  for (const SendRecord& s : h.sends) {
    // settings.per_key_order = true judges every acknowledged send, as if its topic were ordered.
    if ((!s.ordered && h.settings.per_key_order != true) || s.outcome != SendOutcome::ok) continue;
    ordered.emplace(Msg{s.producer, s.seq}, &s);
    keys.emplace(s.producer, s.key);
  }
  // Per (group, producer, key): the highest sequence delivered so far, and every one delivered.
  struct Progress {
    bool any = false;
    std::uint64_t high = 0;
    const ConsumeRecord* high_at = nullptr;
    std::set<std::uint64_t> seen;
  };
  std::map<std::pair<std::string, KeyOf>, Progress> progress;
  std::int64_t reorders = 0;
  for (const ConsumeRecord& c : h.consumes) {
    if (!c.intact) continue;
    auto it = ordered.find({c.producer, c.seq});
    if (it == ordered.end()) continue;
    Progress& p = progress[{h.audience(c), KeyOf{c.producer, it->second->key}}];
    const bool first_time = p.seen.insert(c.seq).second;
    if (first_time && p.any && c.seq < p.high) {
      ++reorders;
      const ConsumeRecord& later = *p.high_at;
      v.violation(fmt::format("key {} of {}: {} ({} offset {}) first consumed by {} ({}) at {} ms, after {}#{} ({} offset {}) at {} ms",
                              it->second->key, c.producer, c.id(), c.queue.to_string(), c.queue_offset.value(), c.consumer, c.group,
                              ms_of(c.at), c.producer, p.high, later.queue.to_string(), later.queue_offset.value(), ms_of(later.at)),
                  c.at);
    }
    if (!p.any || c.seq > p.high) {
      p.any = true;
      p.high = c.seq;
      p.high_at = &c;
    }
  }
  v.figures["ordered_acked"] = static_cast<std::int64_t>(ordered.size());
  v.figures["keys"] = static_cast<std::int64_t>(keys.size());
  v.figures["reorders"] = reorders;
  v.passed = reorders == 0 || h.settings.per_key_order == false;
  return v;
}

}  // namespace ferry::sim::check
