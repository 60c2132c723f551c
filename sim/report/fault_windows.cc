#include "sim/report/fault_windows.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "sim/report/lanes.h"
#include "sim/scenario/duration_text.h"
#include "sim/scenario/fault_schedule.h"

namespace ferry::sim::report {

namespace {

using scenario::FaultAction;
using scenario::FaultEntry;

bool lasts(const FaultEntry& f) {
  switch (f.action) {
    case FaultAction::kill:
    case FaultAction::power_off:
    case FaultAction::silence:
    case FaultAction::pause:
    case FaultAction::partition:
    case FaultAction::partition_one_way:
    case FaultAction::isolate:
    case FaultAction::clog:
    case FaultAction::fill_disk:
    case FaultAction::slow_disk:
    case FaultAction::lying_disk: return true;
    case FaultAction::restart: return f.duration.has_value() && f.duration->count() > 0;
    default: return false;
  }
}

bool shares_target(const FaultEntry& a, const FaultEntry& b) {
  for (const std::string& t : a.targets) {
    if (std::find(b.targets.begin(), b.targets.end(), t) != b.targets.end()) return true;
  }
  return false;
}

// Whether `later` ends `f` (which has no duration).
bool ends(const FaultEntry& f, const FaultEntry& later) {
  switch (later.action) {
    case FaultAction::heal_all: return true;
    case FaultAction::heal: return shares_target(f, later) || shares_target(later, f);
    case FaultAction::resume: return f.action == FaultAction::pause && shares_target(f, later);
    case FaultAction::restart: return (f.action == FaultAction::kill || f.action == FaultAction::power_off) && shares_target(f, later);
    default: return false;
  }
}

// "600ms", "1100ms", "2s": whole seconds as the file writes them, else milliseconds.
std::string latency_text(Duration d) {
  if (d % std::chrono::seconds(1) == Duration::zero()) return scenario::format_duration(d);
  return fmt::format("{}ms", to_ms(d));
}

std::string describe(const FaultEntry& f) {
  std::string text = scenario::FaultStep{f.at, &f, false}.describe();
  if (f.action == FaultAction::clog) text += fmt::format(" (+{} latency)", latency_text(f.latency));
  if (f.action == FaultAction::slow_disk) text += fmt::format(" (+{} a sync)", latency_text(f.latency));
  if (f.action == FaultAction::restart) text += fmt::format(" (down {})", scenario::format_duration(*f.duration));
  return text;
}

}  // namespace

void add_schedule_windows(Timeline& t, const scenario::Scenario& s) {
  std::vector<const FaultEntry*> order;
  for (const FaultEntry& f : s.faults) order.push_back(&f);
  std::stable_sort(order.begin(), order.end(), [](const FaultEntry* a, const FaultEntry* b) { return a->at < b->at; });
  for (std::size_t i = 0; i < order.size(); ++i) {
    const FaultEntry& f = *order[i];
    if (!lasts(f)) continue;
    Duration end = s.run.length;
    std::string until = "until the liveness phase heals it";
    if (f.duration) {
      end = f.at + *f.duration;
      until = fmt::format("for {}", scenario::format_duration(*f.duration));
    } else {
      for (std::size_t j = i + 1; j < order.size(); ++j) {
        if (order[j]->at >= f.at && ends(f, *order[j])) {
          end = order[j]->at;
          until = fmt::format("until {} {}", scenario::format_duration(order[j]->at), scenario::fault_action_name(order[j]->action));
          break;
        }
      }
    }
    t.window(to_ms(f.at), to_ms(end), fmt::format("{} {}", describe(f), until));
  }
}

void add_event_windows(Timeline& t, const check::History& h, MonoTime origin) {
  // One window a step: the fault or crash events of one time and detail, with their nodes.
  struct Opened {
    MonoTime at;
    check::EventKind kind;
    std::string detail;
    std::set<std::string> nodes;
  };
  std::vector<Opened> opened;
  for (const check::Event& e : h.events) {
    if (e.kind != check::EventKind::fault && e.kind != check::EventKind::crash) continue;
    if (!opened.empty() && opened.back().at == e.at && opened.back().detail == e.detail && opened.back().kind == e.kind) {
      opened.back().nodes.insert(e.target);
    } else {
      opened.push_back(Opened{e.at, e.kind, e.detail, {e.target}});
    }
  }
  for (const Opened& o : opened) {
    if (t.windows().size() >= kWindowsMax) {  // full: counted as dropped, no need to find its end
      t.window(0, 0, o.detail);
      continue;
    }
    const check::EventKind closing = o.kind == check::EventKind::fault ? check::EventKind::heal : check::EventKind::start;
    std::optional<MonoTime> end;
    for (const check::Event& e : h.events) {
      if (e.at > o.at && e.kind == closing && o.nodes.count(e.target) > 0) {
        end = e.at;
        break;
      }
    }
    if (!end) continue;
    t.window(ms_since(origin, o.at), ms_since(origin, *end), fmt::format("{} (until {:.1f} s)", o.detail, static_cast<double>(ms_since(origin, *end)) / 1000.0));
  }
}

}  // namespace ferry::sim::report
