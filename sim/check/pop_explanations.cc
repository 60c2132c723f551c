#include "sim/check/pop_explanations.h"

#include <map>
#include <utility>

#include "sim/check/clock_margin.h"

namespace ferry::sim::check {

namespace {

bool explains(const Event& e) {
  const bool broker = e.target.empty() || e.target.rfind("broker", 0) == 0;
  switch (e.kind) {
    case EventKind::crash:
    case EventKind::start:
    case EventKind::promote: return broker;
    case EventKind::fault: return e.detail.find("skew") != std::string::npos;
    case EventKind::heal:
    case EventKind::rebalance: return false;
  }
  return false;
}

}  // namespace

std::vector<PopExplanation> pop_explanations(const History& h) {
  std::vector<PopExplanation> out;
  for (const Event& e : h.events) {
    if (!explains(e)) continue;
    const bool skew = e.kind == EventKind::fault;
    out.push_back(PopExplanation{e.at, e.target, skew ? kSkewTakesEffectWithin : Duration{}});
  }
  std::map<std::pair<std::string, std::string>, std::string> master;  // (controller, group) -> master
  for (const ControllerViewRecord& v : h.controller_views) {
    auto [it, fresh] = master.try_emplace({v.controller, v.group}, v.master);
    if (!fresh && it->second != v.master) out.push_back(PopExplanation{v.at, v.group});
    it->second = v.master;
  }
  return out;
}

bool pop_explained_between(const std::vector<PopExplanation>& events, const std::string& broker, MonoTime from, MonoTime to) {
  for (const PopExplanation& e : events) {
    if (e.at + e.lasting <= from - clock_margin(from) || e.at > to + clock_margin(to)) continue;
    if (e.target.empty() || e.target == broker || e.target.rfind(broker + "-", 0) == 0) return true;
  }
  return false;
}

}  // namespace ferry::sim::check
