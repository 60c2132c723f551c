#include "sim/check/latency_backoff.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <vector>

namespace ferry::sim::check {

namespace {

// MQFaultStrategy's tables (RocketMQ 4.9), restated here: the checker is the client's judge and
// must not read its answer from the client's own constants.
constexpr std::array<std::int64_t, 7> kLatencyMax = {50, 100, 550, 1000, 2000, 3000, 15000};
constexpr std::array<std::int64_t, 7> kNotAvailable = {0, 0, 30000, 60000, 120000, 180000, 600000};
constexpr std::int64_t kFailureLatencyMs = 30000;
constexpr std::int64_t kTryAgainWithin = 20;   // sends elsewhere after a window before "never tried again"
constexpr std::int64_t kRoundRobinSends = 10;  // sends in a window before "avoided unasked"
constexpr auto kRoundRobinWindow = std::chrono::seconds(10);
constexpr std::size_t kWindowsShown = 5;  // per-window figures of an avoiding producer

// Where each send landed: its own queue, or for an unknown outcome where it was consumed.
std::map<std::pair<std::string, std::uint64_t>, std::string> consumed_on(const History& h) {
  std::map<std::pair<std::string, std::uint64_t>, std::string> out;
  for (const ConsumeRecord& c : h.consumes) {
    if (c.intact && c.reconsume_times == 0) out.try_emplace({c.producer, c.seq}, c.queue.broker_name);
  }
  return out;
}

struct Window {
  MonoTime from{};  // the end of the send that set it
  MonoTime until{};
  std::uint64_t cause_seq = 0;
  std::int64_t latency_ms = 0;
  std::size_t cause_index = 0;  // in the producer's sends
};

}  // namespace

std::int64_t expected_isolation_ms(std::int64_t latency_ms) {
  for (std::size_t i = kLatencyMax.size(); i-- > 0;) {
    if (latency_ms >= kLatencyMax[i]) return kNotAvailable[i];
  }
  return 0;
}

Verdict check_latency_backoff(const History& h, const LatencyBackoffBounds& b) {
  Verdict v;
  v.name = "latency_backoff";
  const auto slack = std::chrono::milliseconds(b.slack_ms);
  const auto landed = consumed_on(h);
  std::map<std::string, std::vector<const SendRecord*>> by_producer;
  for (const SendRecord& s : h.sends) by_producer[s.producer].push_back(&s);

  std::int64_t windows_total = 0;
  for (const auto& [producer, sends] : by_producer) {
    const bool enabled = h.latency_fault_producers.count(producer) > 0;
    auto broker_of = [&](const SendRecord& s) -> std::optional<std::string> {
      if (s.outcome == SendOutcome::ok || s.outcome == SendOutcome::stored_not_durable) return s.queue.broker_name;
      auto it = landed.find({s.producer, s.seq});
      if (it != landed.end()) return it->second;
      return std::nullopt;
    };
    // The windows, as the producer's table would have them (the last update wins).
    std::vector<Window> windows;
    std::optional<Window> current;
    std::int64_t in_windows = 0, to_group = 0, longest = 0;
    std::optional<std::int64_t> retry_after;
    auto close_window = [&]() {
      if (!current || current->until <= current->from) return;
      windows.push_back(*current);
      longest = std::max(longest, to_ms(current->until - current->from));
      // After it: the next send to the group, and how many went elsewhere first.
      std::int64_t elsewhere = 0;
      for (std::size_t j = current->cause_index + 1; j < sends.size(); ++j) {
        const SendRecord& s = *sends[j];
        if (s.sent_at < current->until - slack) continue;
        auto where = broker_of(s);
        if (where && *where == b.group) {
          retry_after = std::max(retry_after.value_or(0), std::max<std::int64_t>(0, to_ms(s.sent_at - current->until)));
          return;
        }
        if (++elsewhere >= kTryAgainWithin && enabled) {
          v.violation(fmt::format("{} never tried {} again after its {} ms avoidance ended at {} ms ({} sends went elsewhere)", producer,
                                  b.group, to_ms(current->until - current->from), ms_of(current->until), elsewhere),
                      current->until);
          return;
        }
      }
    };
    for (std::size_t i = 0; i < sends.size(); ++i) {
      const SendRecord& s = *sends[i];
      const std::optional<std::string> where = broker_of(s);
      const bool to_b = where && *where == b.group;
      if (current && s.sent_at > current->from + slack && s.sent_at < current->until - slack) {
        ++in_windows;
        if (to_b) {
          ++to_group;
          if (enabled) {
            v.violation(fmt::format("{} sent #{} to {} at {} ms, inside the {} ms avoidance set by #{} ({} ms latency) until {} ms", producer,
                                    s.seq, b.group, ms_of(s.sent_at), to_ms(current->until - current->from), current->cause_seq,
                                    current->latency_ms, ms_of(current->until)),
                        s.sent_at);
          }
        }
      }
      if (!to_b) continue;
      const bool succeeded = s.outcome == SendOutcome::ok || s.outcome == SendOutcome::stored_not_durable;
      const std::int64_t latency = to_ms(s.done_at - s.sent_at);
      const std::int64_t isolation = expected_isolation_ms(succeeded ? latency : kFailureLatencyMs);
      if (current && s.done_at >= current->until) close_window();  // this send may be the retry
      if (current && s.done_at < current->until) {
        // Overwritten before it ended (RocketMQ keeps the last update only).
        windows.push_back(Window{current->from, s.done_at, current->cause_seq, current->latency_ms, current->cause_index});
        longest = std::max(longest, to_ms(s.done_at - current->from));
      }
      current = Window{s.done_at, s.done_at + std::chrono::milliseconds(isolation), s.seq, succeeded ? latency : kFailureLatencyMs, i};
      if (isolation == 0) current.reset();
    }
    if (current) close_window();
    if (!enabled) {
      // Round robin goes on: a long, busy window with nothing to the group means it was avoided.
      for (const Window& w : windows) {
        if (w.until - w.from < kRoundRobinWindow) continue;
        std::int64_t n = 0, n_b = 0;
        for (const SendRecord* s : sends) {
          if (s->sent_at <= w.from + slack || s->sent_at >= w.until - slack) continue;
          ++n;
          // A send that failed without a trace of where it went may have tried the group.
          auto where = broker_of(*s);
          n_b += (where && *where == b.group) || (!where && s->outcome != SendOutcome::ok) ? 1 : 0;
        }
        if (n >= kRoundRobinSends && n_b == 0) {
          v.violation(fmt::format("{} (sendLatencyFaultEnable off) sent {} times between {} ms and {} ms and never to {}: round robin "
                                  "should go on",
                                  producer, n, ms_of(w.from), ms_of(w.until), b.group),
                      w.from);
        }
      }
    }
    if (windows.empty()) continue;
    windows_total += static_cast<std::int64_t>(windows.size());
    v.figures[producer + ".windows"] = static_cast<std::int64_t>(windows.size());
    v.figures[producer + ".longest_window_ms"] = longest;
    v.figures[producer + ".sends_in_windows"] = in_windows;
    v.figures[producer + ".to_group_in_windows"] = to_group;
    if (retry_after) v.figures[producer + ".retry_after_window_ms"] = *retry_after;
    if (enabled) {
      // The first windows as observed: each one's length, for the reader to hold against 30 s, 60 s, 600 s.
      for (std::size_t k = 0; k < windows.size() && k < kWindowsShown; ++k) {
        v.figures[fmt::format("{}.window_{}_ms", producer, k + 1)] = to_ms(windows[k].until - windows[k].from);
      }
    }
  }
  if (windows_total == 0) {
    v.violation(fmt::format("no send to {} was slow enough (550 ms) to start an avoidance window: nothing to judge", b.group));
  }
  v.passed = v.violations == 0;
  return v;
}

namespace {
constexpr Duration kHour = std::chrono::hours(1);
}  // namespace

CheckerSpec latency_backoff_checker() {
  return CheckerSpec{
      "latency_backoff",
      "with sendLatencyFaultEnable, a slow broker is avoided for the windows RocketMQ's latency table gives",
      false,
      {
          {.name = "broker", .default_value = std::string(), .story = "the slow broker group (required)", .names_group = true},
          {.name = "slack", .default_value = Duration(std::chrono::seconds(1)),
           .story = "tolerance on each avoidance window's edges", .max_duration = kHour},
      },
      Record::sends | Record::consumes | Record::producers,
      [](const History& h, const OptionValues& o) {
        return check_latency_backoff(h, LatencyBackoffBounds{option<std::string>(o, "broker"), option_ms(o, "slack")});
      }};
}

}  // namespace ferry::sim::check
