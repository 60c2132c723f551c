#include "sim/check/duplicates.h"

#include <fmt/format.h>

#include <map>
#include <set>
#include <tuple>

namespace ferry::sim::check {

Verdict check_duplicates(const History& h) {
  Verdict v;
  v.name = "duplicates";
  using Msg = std::pair<std::string, std::uint64_t>;
  std::map<std::pair<std::string, Msg>, std::int64_t> deliveries;  // (group, message) -> count
  std::map<Msg, std::set<std::pair<MessageQueue, std::int64_t>>> positions;
  const ConsumeRecord* first_duplicate = nullptr;
  std::int64_t duplicates = 0;
  for (const ConsumeRecord& c : h.consumes) {
    if (!c.intact) continue;
    const Msg m{c.producer, c.seq};
    if (deliveries[{h.audience(c), m}]++ > 0) {
      ++duplicates;
      if (first_duplicate == nullptr) first_duplicate = &c;
    }
    // A retry topic's copy is the same stored message sent back, not a second store.
    if (c.reconsume_times == 0) positions[m].emplace(c.queue, c.queue_offset.value());
  }
  std::int64_t messages_duplicated = 0, stored_twice = 0;
  for (const auto& [gm, n] : deliveries) messages_duplicated += n > 1 ? 1 : 0;
  for (const auto& [m, where] : positions) stored_twice += where.size() > 1 ? 1 : 0;
  v.figures["duplicates"] = duplicates;
  v.figures["messages_duplicated"] = messages_duplicated;
  v.figures["stored_twice"] = stored_twice;
  const std::int64_t bound = h.settings.duplicates_max;
  if (bound >= 0) v.figures["duplicates_max"] = bound;
  v.passed = bound < 0 || duplicates <= bound;
  if (!v.passed) {
    const ConsumeRecord& c = *first_duplicate;
    v.violations = duplicates - bound;
    v.first_violation_at = c.at;
    v.first_violation = fmt::format("{} duplicate deliveries, more than the bound {}; the first: {} again from {} offset {} to {} ({}) at {} ms",
                                    duplicates, bound, c.id(), c.queue.to_string(), c.queue_offset.value(), c.consumer, c.group,
                                    ms_of(c.at));
  }
  return v;
}

CheckerSpec duplicates_checker() {
  return CheckerSpec{"duplicates", "duplicate deliveries, counted; bounded by the scenario's duplicates_max", true, {}, Record::consumes | Record::consumers,
                     [](const History& h, const OptionValues&) { return check_duplicates(h); }};
}

}  // namespace ferry::sim::check
