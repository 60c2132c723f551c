#include "sim/check/unexpected.h"

#include <fmt/format.h>

#include <map>

namespace ferry::sim::check {

Verdict check_unexpected(const History& h) {
  Verdict v;
  v.name = "unexpected";
  std::map<std::pair<std::string, std::uint64_t>, const SendRecord*> sent;
  for (const SendRecord& s : h.sends) sent.emplace(std::pair{s.producer, s.seq}, &s);
  std::int64_t corrupt = 0, unexpected = 0;
  for (const ConsumeRecord& c : h.consumes) {
    const std::string where = fmt::format("{} offset {} consumed by {} ({}) at {} ms", c.queue.to_string(), c.queue_offset.value(),
                                          c.consumer, c.group, ms_of(c.at));
    if (!c.intact) {
      ++corrupt;
      v.violation("corrupt body: " + where, c.at);
      continue;
    }
    auto it = sent.find({c.producer, c.seq});
    if (it == sent.end()) {
      ++unexpected;
      v.violation(fmt::format("{} was never sent: {}", c.id(), where), c.at);
    } else if (it->second->key != c.key) {
      ++corrupt;
      v.violation(fmt::format("{} carries key \"{}\", sent with \"{}\": {}", c.id(), c.key, it->second->key, where), c.at);
    }
  }
  v.figures["deliveries"] = static_cast<std::int64_t>(h.consumes.size());
  v.figures["corrupt"] = corrupt;
  v.figures["unexpected"] = unexpected;
  v.passed = (corrupt == 0 && unexpected == 0) || !h.settings.corrupt_fails;
  return v;
}

CheckerSpec unexpected_checker() {
  return CheckerSpec{"unexpected", "nothing corrupt is consumed, and nothing nobody sent", true, {}, Record::sends | Record::consumes,
                     [](const History& h, const OptionValues&) { return check_unexpected(h); }};
}

}  // namespace ferry::sim::check
