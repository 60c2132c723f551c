#include "sim/check/selection.h"

#include <fmt/format.h>

#include "sim/history/selection.h"

namespace ferry::sim::check {

Verdict check_selection(const History& h) {
  Verdict v;
  v.name = "selection";
  const Selection selection(h);
  std::int64_t selective = 0, selected = 0;
  for (const auto& [name, info] : h.consumers) {
    if (!info.sql.empty()) ++selective;
  }
  for (const ConsumeRecord& c : h.consumes) {
    if (!c.intact) continue;  // unexpected's judgement
    auto info = h.consumers.find(c.consumer);
    if (info == h.consumers.end() || info->second.sql.empty()) continue;
    if (selection.selects_for_consumer(c.consumer, c.seq, c.key)) {
      ++selected;
      continue;
    }
    v.violation(fmt::format("{}#{} (n = {}, KEYS = {}) delivered to {} (group {}) at {} ms from {} offset {}, although its "
                            "subscription \"{}\" does not select it",
                            c.producer, c.seq, c.seq % kSelectorModulus, c.key, c.consumer, c.group, ms_of(c.at),
                            c.queue.to_string(), c.queue_offset.value(), info->second.sql),
                c.at);
  }
  v.figures["selective_consumers"] = selective;
  v.figures["selected_deliveries"] = selected;
  v.passed = v.violations == 0;
  return v;
}

CheckerSpec selection_checker() {
  return CheckerSpec{"selection", "a consumer with an SQL92 subscription gets only the messages it selects", true, {},
                     Record::consumes | Record::consumers, [](const History& h, const OptionValues&) { return check_selection(h); }};
}

}  // namespace ferry::sim::check
