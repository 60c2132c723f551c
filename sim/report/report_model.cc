#include "sim/report/report_model.h"

#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <utility>

#include "sim/report/fault_windows.h"
#include "sim/report/lanes.h"
#include "sim/scenario/fault_schedule.h"

namespace ferry::sim::report {

namespace {

// The earliest and the latest time the history records (origin when it records nothing).
std::pair<MonoTime, MonoTime> record_range(const sim::History& h, MonoTime fallback) {
  std::optional<MonoTime> lo, hi;
  auto see = [&](MonoTime t) {
    if (t == MonoTime{}) return;  // not set (a send still in flight has no done_at)
    lo = lo ? std::min(*lo, t) : t;
    hi = hi ? std::max(*hi, t) : t;
  };
  for (const sim::SendRecord& s : h.sends) {
    see(s.sent_at);
    see(s.done_at);
  }
  for (const sim::ConsumeRecord& c : h.consumes) see(c.at);
  for (const sim::Event& e : h.events) see(e.at);
  return {lo.value_or(fallback), hi.value_or(fallback)};
}

void fill_counts(ReportModel& m, const sim::History& h) {
  m.sends = h.sends.size();
  m.deliveries = h.consumes.size();
  m.events = h.events.size();
}

std::string base_name(std::string_view path) {
  const auto slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

}  // namespace

ReportModel model_from_run(const scenario::Scenario& s, const scenario::RunOutcome& run, std::string_view source) {
  ReportModel m;
  m.name = bounded_text(s.name);
  m.story = bounded_text(s.story, kLongTextBytesMax);
  m.source = bounded_text(source, kLongTextBytesMax);
  m.seed = run.seed;
  m.passed = run.passed();
  m.failure = bounded_text(run.first_failure(), kLongTextBytesMax);
  m.verdicts = run.verdicts;
  if (!run.error) {
    m.trace_hash = run.trace_hash;
    m.simulated_ms = to_ms(run.simulated);
    if (s.liveness.enabled) m.liveness = bounded_text(run.live.to_string(), kLongTextBytesMax);
  }
  const sim::History& h = *run.history;
  fill_counts(m, h);
  m.origin = "the workload's start (after boot); fault times in the scenario count from here";
  for (const scenario::FaultStep& step : scenario::fault_timeline(s)) {
    if (m.schedule.size() < kScheduleLinesMax) {
      m.schedule.push_back(bounded_text(step.describe()));
    } else {
      ++m.schedule_dropped;
    }
  }

  // x runs to the end of the run (liveness included), and at least to the last record.
  const MonoTime origin = run.start;
  const MonoTime last = record_range(h, origin).second;
  const std::int64_t run_end = to_ms(run.simulated) - ms_since(MonoTime{}, origin);
  m.timeline = Timeline(std::max({run_end, ms_since(origin, last), to_ms(s.run.length)}));
  std::vector<std::string> groups, consumers;
  for (const auto& g : s.cluster.brokers) groups.push_back(g.name);
  for (const auto& c : s.consumers) consumers.push_back(c.node);
  add_send_lanes(m.timeline, h, origin, groups);
  add_consume_lanes(m.timeline, h, origin, consumers);
  add_event_marks(m.timeline, h, origin);
  add_route_marks(m.timeline, h, origin);
  add_metric_lanes(m.timeline, h, origin);
  add_schedule_windows(m.timeline, s);
  return m;
}

ReportModel model_from_history(const sim::History& h, std::string_view source, std::vector<check::Verdict> verdicts) {
  ReportModel m;
  m.name = bounded_text(base_name(source));
  m.source = bounded_text(source, kLongTextBytesMax);
  m.verdicts = std::move(verdicts);
  m.passed = std::all_of(m.verdicts.begin(), m.verdicts.end(), [](const check::Verdict& v) { return v.passed; });
  for (const check::Verdict& v : m.verdicts) {
    if (!v.passed) {
      m.failure = bounded_text(fmt::format("{}: {}", v.name, v.first_violation.empty() ? "failed" : v.first_violation), kLongTextBytesMax);
      break;
    }
  }
  fill_counts(m, h);
  m.origin = "the history's first record (a history does not say when the workload started)";
  const auto [first, last] = record_range(h, MonoTime{});
  m.timeline = Timeline(ms_since(first, last));
  add_send_lanes(m.timeline, h, first, {});
  add_consume_lanes(m.timeline, h, first, {});
  add_event_marks(m.timeline, h, first);
  add_route_marks(m.timeline, h, first);
  add_metric_lanes(m.timeline, h, first);
  add_event_windows(m.timeline, h, first);
  return m;
}

}  // namespace ferry::sim::report
