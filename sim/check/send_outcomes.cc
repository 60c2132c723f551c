#include "sim/check/send_outcomes.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

namespace ferry::sim::check {

namespace {

std::int64_t ms_between(MonoTime from, MonoTime to) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(to - from).count();
}

struct Window {
  MonoTime from{};
  std::optional<MonoTime> to;
};

// The first fault or crash naming `node`, ended by the first heal or start naming it after.
std::optional<Window> fault_window(const History& h, const std::string& node) {
  std::optional<Window> w;
  for (const Event& e : h.events) {
    if (e.target != node) continue;
    if (!w && (e.kind == EventKind::fault || e.kind == EventKind::crash)) {
      w = Window{e.at, std::nullopt};
    } else if (w && !w->to && (e.kind == EventKind::heal || e.kind == EventKind::start)) {
      w->to = e.at;
    }
  }
  return w;
}

void judge_group(const History& h, const SendOutcomesBounds& b, Verdict& v) {
  const std::optional<Window> w = fault_window(h, b.group);
  if (!w) {
    if (b.writes_resume_within_ms > 0) v.violation(fmt::format("writes_resume_ms: no fault or crash named {}", b.group));
    return;
  }
  v.figures["fault_at_ms"] = ms_of(w->from);
  std::int64_t in_fault = 0;
  std::optional<MonoTime> last_in_fault;
  std::optional<MonoTime> resumed;
  for (const SendRecord& s : h.sends) {
    if (s.outcome != SendOutcome::ok || s.queue.broker_name != b.group) continue;
    if (s.done_at >= w->from && (!w->to || s.done_at < *w->to)) {
      ++in_fault;
      if (!last_in_fault || s.done_at > *last_in_fault) last_in_fault = s.done_at;
    }
    if (w->to && s.sent_at >= *w->to && (!resumed || s.done_at < *resumed)) resumed = s.done_at;
  }
  v.figures["ok_on_group_in_fault"] = in_fault;
  if (last_in_fault) v.figures["last_ok_in_fault_ms"] = ms_between(w->from, *last_in_fault);
  if (resumed) v.figures["writes_resume_ms"] = ms_between(*w->to, *resumed);
  if (b.writes_resume_within_ms <= 0) return;
  if (!w->to) {
    v.violation(fmt::format("writes_resume_ms: {}'s fault at {} ms never ended before the liveness phase", b.group, ms_of(w->from)));
  } else if (!resumed) {
    v.violation(fmt::format("writes_resume_ms: {} acknowledged no send started after its heal at {} ms", b.group, ms_of(*w->to)));
  } else if (ms_between(*w->to, *resumed) > b.writes_resume_within_ms) {
    v.violation(fmt::format("writes_resume_ms = {} ms exceeds the bound of {} ms", ms_between(*w->to, *resumed),
                            b.writes_resume_within_ms));
  }
}

}  // namespace

Verdict check_send_outcomes(const History& h, const SendOutcomesBounds& b) {
  Verdict v;
  v.name = "send_outcomes";
  std::int64_t counts[kSendOutcomeMax + 1] = {};
  std::int64_t slow_ok = 0;
  std::int64_t slowest_ok = 0;
  const SendRecord* first_failed = nullptr;
  const SendRecord* first_unknown = nullptr;
  for (const SendRecord& s : h.sends) {
    ++counts[static_cast<std::size_t>(s.outcome)];
    if (s.outcome == SendOutcome::failed && first_failed == nullptr) first_failed = &s;
    if (s.outcome == SendOutcome::unknown && first_unknown == nullptr) first_unknown = &s;
    if (s.outcome != SendOutcome::ok) continue;
    const std::int64_t took = ms_between(s.sent_at, s.done_at);
    if (took > b.slow_ms) ++slow_ok;
    slowest_ok = std::max(slowest_ok, took);
  }
  const std::int64_t failed = counts[static_cast<std::size_t>(SendOutcome::failed)];
  const std::int64_t unknown = counts[static_cast<std::size_t>(SendOutcome::unknown)];
  const std::int64_t not_durable = counts[static_cast<std::size_t>(SendOutcome::stored_not_durable)];
  v.figures["ok"] = counts[static_cast<std::size_t>(SendOutcome::ok)];
  v.figures["not_durable"] = not_durable;
  v.figures["failed"] = failed;
  v.figures["unknown"] = unknown;
  v.figures["slow_ok"] = slow_ok;
  v.figures["slowest_ok_ms"] = slowest_ok;
  if (b.failed_max >= 0 && failed > b.failed_max) {
    v.violation(fmt::format("{} sends failed (at most {}); the first, {}, at {} ms: {}", failed, b.failed_max, first_failed->id(),
                            ms_of(first_failed->done_at), first_failed->detail));
  }
  if (b.unknown_max >= 0 && unknown > b.unknown_max) {
    v.violation(fmt::format("{} sends ended unknown (at most {}); the first, {}, at {} ms: {}", unknown, b.unknown_max,
                            first_unknown->id(), ms_of(first_unknown->done_at), first_unknown->detail));
  }
  if (not_durable < b.not_durable_min) {
    v.violation(fmt::format("{} sends were answered stored-but-not-durable; the scenario needs at least {}", not_durable,
                            b.not_durable_min));
  }
  if (slow_ok < b.slow_ok_min) {
    v.violation(fmt::format("{} acknowledged sends took over {} ms; the scenario needs at least {}", slow_ok, b.slow_ms,
                            b.slow_ok_min));
  }
  if (!b.group.empty()) judge_group(h, b, v);
  v.passed = v.violations == 0;
  return v;
}

namespace {
constexpr Duration kHour = std::chrono::hours(1);
constexpr std::int64_t kCountMax = 1'000'000'000;
}  // namespace

CheckerSpec send_outcomes_checker() {
  return CheckerSpec{
      "send_outcomes",
      "what the producers were told, counted: ok, not durable, failed, unknown, slow acknowledgements; with a group, "
      "how soon it takes writes again after its fault ends",
      false,
      {
          {.name = "failed_max", .default_value = std::int64_t{-1},
           .story = "sends that may end failed (after the client's retries); -1: counted only", .min = -1, .max = kCountMax},
          {.name = "unknown_max", .default_value = std::int64_t{-1},
           .story = "sends that may end unknown (a timeout or a broken connection); -1: counted only", .min = -1,
           .max = kCountMax},
          {.name = "not_durable_min", .default_value = std::int64_t{0},
           .story = "sends that must be answered stored-but-not-durable (FLUSH_DISK_TIMEOUT)", .max = kCountMax},
          {.name = "slow", .default_value = Duration(std::chrono::seconds(1)),
           .story = "an acknowledged send slower than this (call to answer) is slow",
           .min_duration = std::chrono::milliseconds(1), .max_duration = kHour},
          {.name = "slow_ok_min", .default_value = std::int64_t{0}, .story = "acknowledged sends that must be slow",
           .max = kCountMax},
          {.name = "group", .default_value = std::string(),
           .story = "a broker group whose fault window is measured (\"\": none)", .names_group = true, .optional = true},
          {.name = "writes_resume_within", .default_value = Duration{},
           .story = "bound on the time from the end of the group's fault to its first acknowledged send; 0s: measured only",
           .max_duration = kHour},
      },
      Record::sends | Record::events,
      [](const History& h, const OptionValues& o) {
        return check_send_outcomes(
            h, SendOutcomesBounds{option<std::int64_t>(o, "failed_max"), option<std::int64_t>(o, "unknown_max"),
                                  option<std::int64_t>(o, "not_durable_min"), option_ms(o, "slow"),
                                  option<std::int64_t>(o, "slow_ok_min"), option<std::string>(o, "group"),
                                  option_ms(o, "writes_resume_within")});
      }};
}

}  // namespace ferry::sim::check
