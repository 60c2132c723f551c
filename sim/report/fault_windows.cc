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
#include "sim/scenario/fault_registry.h"
#include "sim/scenario/fault_schedule.h"

namespace ferry::sim::report {

namespace {

using scenario::FaultEntry;

bool lasts(const FaultEntry& f) {
  const scenario::FaultActionSpec& a = scenario::fault_actions().at(f.action);
  return a.lasts && a.lasts(f);
}

// Whether `later` ends `f` (which has no duration).
bool ends(const FaultEntry& f, const FaultEntry& later) {
  const scenario::FaultActionSpec& a = scenario::fault_actions().at(later.action);
  return a.ends && a.ends(f, later);
}

std::string describe(const FaultEntry& f) {
  std::string text = scenario::FaultStep{f.at, &f, false}.describe();
  const scenario::FaultActionSpec& a = scenario::fault_actions().at(f.action);
  if (a.detail) text += a.detail(f);
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
          until = fmt::format("until {} {}", scenario::format_duration(order[j]->at), order[j]->action);
          break;
        }
      }
    }
    t.window(to_ms(f.at), to_ms(end), fmt::format("{} {}", describe(f), until));
  }
}

void add_event_windows(Timeline& t, const sim::History& h, MonoTime origin) {
  // One window a step: the fault or crash events of one time and detail, with their nodes.
  struct Opened {
    MonoTime at;
    sim::EventKind kind;
    std::string detail;
    std::set<std::string> nodes;
  };
  std::vector<Opened> opened;
  for (const sim::Event& e : h.events) {
    if (e.kind != sim::EventKind::fault && e.kind != sim::EventKind::crash) continue;
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
    const sim::EventKind closing = o.kind == sim::EventKind::fault ? sim::EventKind::heal : sim::EventKind::start;
    std::optional<MonoTime> end;
    for (const sim::Event& e : h.events) {
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
