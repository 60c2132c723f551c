#include "sim/check/transactions.h"

#include <fmt/format.h>

#include <map>
#include <utility>

namespace ferry::sim::check {

namespace {

std::string rolled_back_by(const SendRecord& s) {
  if (s.outcome != SendOutcome::ok) return fmt::format("its half message ended {}", outcome_name(s.outcome));
  if (s.by_check || !s.verdict_at) return "by the answer to the broker's check";
  return fmt::format("by the producer's verdict at {} ms", ms_of(*s.verdict_at));
}

}  // namespace

Verdict check_transactions(const History& h) {
  Verdict v;
  v.name = "transactions";
  std::map<std::pair<std::string, std::uint64_t>, const SendRecord*> sent;
  std::int64_t committed = 0, rolled_back = 0, by_check = 0, no_verdict = 0;
  for (const SendRecord& s : h.sends) {
    if (s.fate == TxFate::none) continue;
    sent[{s.producer, s.seq}] = &s;
    committed += s.fate == TxFate::commit ? 1 : 0;
    rolled_back += s.fate == TxFate::rollback ? 1 : 0;
    by_check += s.by_check ? 1 : 0;
    no_verdict += s.outcome == SendOutcome::ok && !s.verdict_at ? 1 : 0;
  }
  std::map<std::pair<std::string, std::uint64_t>, MonoTime> first_delivery;
  for (const ConsumeRecord& c : h.consumes) {
    if (!c.intact) continue;
    auto it = sent.find({c.producer, c.seq});
    if (it == sent.end()) continue;
    const SendRecord& s = *it->second;
    first_delivery.try_emplace(it->first, c.at);
    if (s.fate == TxFate::rollback) {
      v.violation(fmt::format("{} was rolled back ({}) and yet delivered to {} (group {}) at {} ms from {} offset {}", s.id(),
                              rolled_back_by(s), c.consumer, c.group, ms_of(c.at), c.queue.to_string(), c.queue_offset.value()),
                  c.at);
    }
  }
  std::int64_t resolved_by_check = 0, check_resolve_max = 0, verdict_to_delivery_max = 0, undelivered = 0;
  for (const auto& [id, s] : sent) {
    if (!s->owed()) continue;
    auto d = first_delivery.find(id);
    if (d == first_delivery.end()) {
      ++undelivered;
      continue;
    }
    if (s->by_check || !s->verdict_at) {
      ++resolved_by_check;
      check_resolve_max = std::max(check_resolve_max, to_ms(d->second - s->done_at));
    } else {
      verdict_to_delivery_max = std::max(verdict_to_delivery_max, to_ms(d->second - *s->verdict_at));
    }
  }
  v.figures["transactions"] = static_cast<std::int64_t>(sent.size());
  v.figures["committed"] = committed;
  v.figures["rolled_back"] = rolled_back;
  v.figures["by_check"] = by_check;
  v.figures["no_verdict"] = no_verdict;
  v.figures["resolved_by_check"] = resolved_by_check;
  v.figures["check_resolve_max_ms"] = check_resolve_max;
  v.figures["verdict_to_delivery_max_ms"] = verdict_to_delivery_max;
  v.figures["undelivered_commits"] = undelivered;
  v.passed = v.violations == 0;
  return v;
}

CheckerSpec transactions_checker() {
  return CheckerSpec{"transactions",
                     "a transactional message whose transaction rolled back (the producer's verdict or the answer to a check) "
                     "is never delivered",
                     true,
                     {},
                     Record::sends | Record::consumes,
                     [](const History& h, const OptionValues&) { return check_transactions(h); }};
}

}  // namespace ferry::sim::check
