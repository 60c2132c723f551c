#include "sim/check/timer_delivery.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <utility>

#include "sim/check/clock_margin.h"
#include "sim/history/option_value.h"

namespace ferry::sim::check {

namespace {

bool is_broker(const std::string& node) { return node.starts_with("broker"); }

// A broker's wall clock jumped (a skew_clock fault) and a broker started after the jump, both
// before `until`: that broker's timer clock was read again from a jumped wall clock.
bool restarted_after_jump(const History& h, MonoTime until) {
  std::optional<MonoTime> jump;
  for (const Event& e : h.events) {
    if (e.at > until) break;
    if (e.kind == EventKind::fault && (e.target.empty() || is_broker(e.target)) &&
        e.detail.find("clock") != std::string::npos) {
      if (!jump) jump = e.at;
    } else if (e.kind == EventKind::start && is_broker(e.target) && jump && e.at >= *jump) {
      return true;
    }
  }
  return false;
}

const Event* event_between(const History& h, MonoTime from, MonoTime to) {
  for (const Event& e : h.events) {
    if (e.at >= from && e.at <= to) return &e;
  }
  return nullptr;
}

std::int64_t percentile(std::vector<std::int64_t> v, int pct) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t i = std::min(v.size() - 1, (v.size() * static_cast<std::size_t>(pct) + 99) / 100 - 1);
  return v[i];
}

}  // namespace

Verdict check_timer_delivery(const History& h, const TimerDeliveryBounds& b) {
  Verdict v;
  v.name = "timer_delivery";
  // The first consumption of each message, by "producer#seq".
  std::map<std::pair<std::string, std::uint64_t>, MonoTime> first;
  for (const ConsumeRecord& c : h.consumes) {
    if (!c.intact) continue;
    auto [it, fresh] = first.try_emplace({c.producer, c.seq}, c.at);
    if (!fresh) it->second = std::min(it->second, c.at);
  }
  std::int64_t timers = 0, judged = 0, early = 0, late = 0, excused = 0, delay_max = 0;
  std::vector<std::int64_t> lateness;
  for (const SendRecord& s : h.sends) {
    if (!s.timer_delay || s.outcome != SendOutcome::ok) continue;
    ++timers;
    delay_max = std::max(delay_max, to_ms(*s.timer_delay));
    auto it = first.find({s.producer, s.seq});
    if (it == first.end()) continue;
    ++judged;
    const MonoTime at = it->second;
    const Duration delay = *s.timer_delay;
    lateness.push_back(to_ms(at - (s.sent_at + delay)));
    const MonoTime not_before = s.sent_at + delay - clock_margin(s.sent_at + delay) - clock_margin(at) - b.early_slack;
    if (at < not_before && !restarted_after_jump(h, at)) {
      ++early;
      v.violation(fmt::format("{} asked for a delay of {} ms (sent at {} ms) and was first consumed at {} ms: {} ms early",
                              s.id(), to_ms(delay), ms_of(s.sent_at), ms_of(at), to_ms(s.sent_at + delay - at)),
                  at);
    }
    const MonoTime due_by = s.done_at + delay + b.precision + b.late_max + clock_margin(at) + clock_margin(s.done_at);
    if (at > due_by) {
      if (const Event* e = event_between(h, s.sent_at - b.aftermath, at)) {
        (void)e;
        ++excused;
      } else {
        ++late;
        v.violation(fmt::format("{} asked for a delay of {} ms (acknowledged at {} ms) and was first consumed at {} ms: "
                                "{} ms after it was due, more than the {} ms allowed, with no fault in between",
                                s.id(), to_ms(delay), ms_of(s.done_at), ms_of(at), to_ms(at - (s.done_at + delay + b.precision)),
                                to_ms(b.late_max)),
                    at);
      }
    }
  }
  v.figures["timers"] = timers;
  v.figures["judged"] = judged;
  v.figures["early"] = early;
  v.figures["late"] = late;
  v.figures["late_excused"] = excused;
  v.figures["lateness_p50_ms"] = percentile(lateness, 50);
  v.figures["lateness_p99_ms"] = percentile(lateness, 99);
  v.figures["lateness_max_ms"] = lateness.empty() ? 0 : *std::max_element(lateness.begin(), lateness.end());
  v.figures["delay_max_ms"] = delay_max;
  v.passed = v.violations == 0;
  return v;
}

CheckerSpec timer_delivery_checker() {
  return CheckerSpec{
      "timer_delivery",
      "timer messages arrive no earlier than their send plus their delay, and within a precision plus a bound after it",
      false,
      {
          {.name = "late_max", .default_value = Duration(std::chrono::seconds(2)),
           .story = "how long after it is due (acknowledged + delay + precision) a timer may first be consumed "
                    "when no fault lies in between",
           .max_duration = std::chrono::hours(1)},
          {.name = "precision", .default_value = Duration(std::chrono::seconds(1)),
           .story = "the brokers' timerPrecisionMs", .min_duration = std::chrono::milliseconds(100),
           .max_duration = std::chrono::seconds(1)},
          {.name = "early_slack", .default_value = Duration{},
           .story = "how much earlier than asked a timer may arrive (brokers whose wall clocks disagree, with a failover)",
           .max_duration = std::chrono::hours(1)},
          {.name = "aftermath", .default_value = Duration{},
           .story = "how long before a late timer's send an Event still excuses it (a consumer's route of a restarted "
                    "broker lacks it until its next poll, 30 s)",
           .max_duration = std::chrono::hours(1)},
      },
      Record::sends | Record::consumes | Record::events,
      [](const History& h, const OptionValues& o) {
        return check_timer_delivery(h, TimerDeliveryBounds{std::chrono::milliseconds(option_ms(o, "late_max")),
                                                           std::chrono::milliseconds(option_ms(o, "precision")),
                                                           std::chrono::milliseconds(option_ms(o, "early_slack")),
                                                           std::chrono::milliseconds(option_ms(o, "aftermath"))});
      }};
}

}  // namespace ferry::sim::check
