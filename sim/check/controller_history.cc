#include "sim/check/controller_history.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <map>
#include <set>
#include <tuple>

namespace ferry::sim::check {

namespace {

// The last view of one (controller, group) in the controller's current life.
struct Seen {
  std::int32_t master_epoch = 0;
  std::int32_t sync_state_set_epoch = 0;
  MonoTime at{};
};

// What the first controller to show a state showed.
struct FirstShown {
  std::string controller;
  std::string master;
  std::vector<std::string> sync_state_set;
};

std::string set_text(const std::vector<std::string>& s) { return fmt::format("{{{}}}", fmt::join(s, ", ")); }

}  // namespace

Verdict check_controller_history(const History& h) {
  Verdict v;
  v.name = "controller-history";
  // The crashes and starts of each controller, in time order: a new life begins at each (a Raft
  // restarted from its files after a failed log sync is a start too: controller_observer.h).
  std::map<std::string, std::vector<MonoTime>> life_breaks;
  for (const Event& e : h.events) {
    if ((e.kind == EventKind::crash || e.kind == EventKind::start) && e.target.rfind("controller-", 0) == 0) {
      life_breaks[e.target].push_back(e.at);
    }
  }
  auto new_life_between = [&](const std::string& controller, MonoTime from, MonoTime to) {
    auto it = life_breaks.find(controller);
    if (it == life_breaks.end()) return false;
    for (MonoTime t : it->second) {
      if (t > from && t <= to) return true;
    }
    return false;
  };

  std::map<std::pair<std::string, std::string>, Seen> last;                                   // (controller, group)
  std::map<std::tuple<std::string, std::int32_t, std::int32_t>, FirstShown> states;           // (group, mE, sssE)
  std::map<std::pair<std::string, std::int32_t>, FirstShown> masters;                         // (group, mE)
  std::map<std::string, std::int32_t> max_epoch;                                              // by group
  std::set<std::string> controllers;
  for (const ControllerViewRecord& r : h.controller_views) {
    controllers.insert(r.controller);
    std::int32_t& top = max_epoch[r.group];
    top = std::max(top, r.master_epoch);
    auto [it, fresh] = last.try_emplace({r.controller, r.group}, Seen{r.master_epoch, r.sync_state_set_epoch, r.at});
    if (!fresh) {
      Seen& s = it->second;
      if (!new_life_between(r.controller, s.at, r.at) &&
          (r.master_epoch < s.master_epoch || r.sync_state_set_epoch < s.sync_state_set_epoch)) {
        v.violation(fmt::format("{} went back on {}: masterEpoch {} -> {}, syncStateSetEpoch {} -> {} (at {} ms, same life)",
                                r.controller, r.group, s.master_epoch, r.master_epoch, s.sync_state_set_epoch,
                                r.sync_state_set_epoch, ms_of(r.at)),
                    r.at);
      }
      s = Seen{r.master_epoch, r.sync_state_set_epoch, r.at};
    }
    auto [st, first] = states.try_emplace({r.group, r.master_epoch, r.sync_state_set_epoch},
                                          FirstShown{r.controller, r.master, r.sync_state_set});
    if (!first && (st->second.master != r.master || st->second.sync_state_set != r.sync_state_set)) {
      v.violation(fmt::format("two histories of {} at masterEpoch {} syncStateSetEpoch {}: {} showed master '{}' set {}, "
                              "{} showed master '{}' set {} (at {} ms)",
                              r.group, r.master_epoch, r.sync_state_set_epoch, st->second.controller, st->second.master,
                              set_text(st->second.sync_state_set), r.controller, r.master, set_text(r.sync_state_set),
                              ms_of(r.at)),
                  r.at);
    }
    auto [m, first_master] = masters.try_emplace({r.group, r.master_epoch}, FirstShown{r.controller, r.master, {}});
    if (!first_master && m->second.master != r.master) {
      v.violation(fmt::format("masterEpoch {} of {} names two masters: '{}' ({}) and '{}' ({}) (at {} ms)", r.master_epoch,
                              r.group, m->second.master, m->second.controller, r.master, r.controller, ms_of(r.at)),
                  r.at);
    }
  }
  // A broker's epoch must have come from the controllers.
  std::set<std::string> reported;
  for (const BrokerEpochRecord& b : h.broker_epochs) {
    const auto top = max_epoch.find(b.group);
    const std::int32_t allowed = top == max_epoch.end() ? 0 : top->second;
    if (b.epoch > allowed && reported.insert(b.broker).second) {
      v.violation(fmt::format("{} holds masterEpoch {} of {}, above every epoch the controllers showed ({}) (at {} ms)", b.broker,
                              b.epoch, b.group, allowed, ms_of(b.at)),
                  b.at);
    }
  }
  std::int64_t elections = 0;
  std::int32_t top_epoch = 0;
  for (const auto& [key, shown] : masters) {
    if (!shown.master.empty()) ++elections;
  }
  for (const auto& [group, e] : max_epoch) top_epoch = std::max(top_epoch, e);
  v.figures["views"] = static_cast<std::int64_t>(h.controller_views.size());
  v.figures["controllers"] = static_cast<std::int64_t>(controllers.size());
  v.figures["elections"] = elections;
  v.figures["max_master_epoch"] = top_epoch;
  v.passed = v.violations == 0;
  return v;
}

CheckerSpec controller_history_checker() {
  return CheckerSpec{"controller-history",
                     "controller mode: every controller shows one history of masters and SyncStateSets, epochs only grow "
                     "within a controller's life, and no broker holds an epoch the controllers never gave",
                     true,
                     {},
                     Record::controller_views | Record::broker_epochs | Record::events,
                     [](const History& h, const OptionValues&) { return check_controller_history(h); }};
}

}  // namespace ferry::sim::check
