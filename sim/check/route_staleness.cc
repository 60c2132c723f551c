#include "sim/check/route_staleness.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <tuple>

namespace ferry::sim::check {

namespace {

bool routes_to_master(const RouteRecord& r, const std::string& group) {
  auto it = r.groups.find(group);
  return it != r.groups.end() && it->second.master;
}

bool is_namesrv(const std::string& observer) { return observer.compare(0, 8, "namesrv-") == 0; }

std::int64_t ms_between(MonoTime from, MonoTime to) { return to_ms(to - from); }

// The group's master going dark, and coming back.
struct Outage {
  MonoTime from{};
  std::optional<MonoTime> back;
};

std::optional<Outage> outage_of(const History& h, const std::string& node) {
  std::optional<Outage> o;
  for (const Event& e : h.events) {
    if (e.target != node) continue;
    if (!o && (e.kind == EventKind::fault || e.kind == EventKind::crash)) {
      o = Outage{e.at, std::nullopt};
    } else if (o && !o->back && (e.kind == EventKind::heal || e.kind == EventKind::start)) {
      o->back = e.at;
    }
  }
  return o;
}

// A violation is timed at `since`, the event the figure is measured from.
void judge(Verdict& v, const char* name, std::optional<std::int64_t> figure, std::int64_t bound_ms, const std::string& why,
           MonoTime since) {
  if (figure) v.figures[name] = *figure;
  if (bound_ms <= 0) return;
  // Each figure is the distance between two observed times, and an observer records a change
  // up to kObserveEvery after it happened: the later end may be that late, the earlier on time.
  const std::int64_t allowance = to_ms(kObserveEvery);
  if (!figure) {
    v.violation(fmt::format("{}: not measurable ({}), bound {} ms", name, why, bound_ms), since);
  } else if (*figure > bound_ms + allowance) {
    v.violation(fmt::format("{} = {} ms exceeds the bound of {} ms (+{} ms: the observers look every {} ms)", name, *figure, bound_ms,
                            allowance, allowance),
                since);
  }
}

void judge_outage(const History& h, const RouteStalenessBounds& b, const Outage& out, Verdict& v) {
  const std::string& g = b.group;
  // Per NameServer: when it dropped the group, and the last registration it had taken before.
  std::map<std::string, MonoTime> dropped;    // namesrv -> first route without g's master
  std::map<std::string, MonoTime> readded;    // namesrv -> first route with it again
  std::set<std::string> namesrvs;
  for (const RouteRecord& r : h.routes) {
    if (!is_namesrv(r.observer)) continue;
    namesrvs.insert(r.observer);
    if (r.at < out.from) continue;
    if (!routes_to_master(r, g)) {
      dropped.try_emplace(r.observer, r.at);
    } else if (dropped.count(r.observer) > 0) {
      readded.try_emplace(r.observer, r.at);
    }
  }
  std::optional<std::int64_t> ns_drop;
  std::string why = "no NameServer dropped " + g;
  for (const auto& [ns, at] : dropped) {
    std::optional<MonoTime> last_reg;
    for (const RegistrationRecord& reg : h.registrations) {
      if (reg.namesrv == ns && reg.broker == g && reg.at <= at) last_reg = reg.at;
    }
    if (!last_reg) continue;
    const std::int64_t ms = ms_between(*last_reg, at);
    ns_drop = std::max(ns_drop.value_or(0), ms);
  }
  if (dropped.size() < namesrvs.size()) {
    ns_drop.reset();
    why = fmt::format("{} of {} NameServers dropped {}{}", dropped.size(), namesrvs.size(), g,
                      out.back ? fmt::format(" before it was back at {} ms", ms_of(*out.back)) : "");
  }
  judge(v, "namesrv_drop_ms", ns_drop, b.namesrv_drop_within_ms, why, out.from);
  if (dropped.size() < namesrvs.size() || dropped.empty()) return;
  MonoTime all_dropped{};
  for (const auto& [ns, at] : dropped) all_dropped = std::max(all_dropped, at);

  // Clients that routed to the group before the outage: when each followed.
  std::map<std::string, bool> had;  // client -> routed to g's master at the outage
  std::map<std::string, MonoTime> followed;
  for (const RouteRecord& r : h.routes) {
    if (is_namesrv(r.observer)) continue;
    if (r.at <= out.from) {
      had[r.observer] = routes_to_master(r, g);  // its last record before the outage
      continue;
    }
    if (had.count(r.observer) == 0 || !had[r.observer]) continue;
    if (!routes_to_master(r, g) && !r.groups.empty()) followed.try_emplace(r.observer, r.at);
  }
  std::optional<std::int64_t> client_lag;
  std::int64_t unmeasured = 0;
  MonoTime last_follow = all_dropped;
  for (const auto& [client, routed] : had) {
    if (!routed) continue;
    auto f = followed.find(client);
    if (f == followed.end()) {
      // Back before the client's poll was due: no evidence either way.
      if (out.back && *out.back < all_dropped + std::chrono::milliseconds(b.client_route_within_ms)) {
        ++unmeasured;
        continue;
      }
      v.violation(fmt::format("{} still routed to {}'s master after every NameServer dropped it at {} ms", client, g,
                              ms_of(all_dropped)),
                  all_dropped);
      continue;
    }
    last_follow = std::max(last_follow, f->second);
    client_lag = std::max(client_lag.value_or(0), std::max<std::int64_t>(0, ms_between(all_dropped, f->second)));
  }
  v.figures["clients_followed"] = static_cast<std::int64_t>(followed.size());
  if (unmeasured > 0) v.figures["clients_unmeasured"] = unmeasured;
  judge(v, "client_route_ms", client_lag, b.client_route_within_ms, "no client routed to " + g + " before the outage", all_dropped);

  std::int64_t failed = 0, slow = 0;
  for (const SendRecord& s : h.sends) {
    if (s.sent_at < out.from || s.sent_at > last_follow) continue;
    if (s.outcome != SendOutcome::ok) ++failed;
    if (s.done_at - s.sent_at > std::chrono::seconds(1)) ++slow;
  }
  v.figures["failed_sends"] = failed;
  v.figures["slow_sends"] = slow;

  if (out.back && !readded.empty()) {
    MonoTime ns_back{};
    for (const auto& [ns, at] : readded) ns_back = std::max(ns_back, at);
    v.figures["namesrv_back_ms"] = ms_between(*out.back, ns_back);
    std::optional<std::int64_t> client_back;
    std::set<std::string> seen;
    for (const RouteRecord& r : h.routes) {
      if (is_namesrv(r.observer) || r.at < ns_back || followed.count(r.observer) == 0 || seen.count(r.observer) > 0) continue;
      if (routes_to_master(r, g)) {
        seen.insert(r.observer);
        client_back = std::max(client_back.value_or(0), ms_between(ns_back, r.at));
      }
    }
    if (client_back) v.figures["client_back_ms"] = *client_back;
  }
}

// A queue-count change of any group on a NameServer, followed by each client that uses the topic.
void judge_queue_changes(const History& h, const RouteStalenessBounds& b, Verdict& v) {
  std::map<std::tuple<std::string, std::string, std::string>, RouteGroup> last;  // (namesrv, topic, group)
  std::optional<std::int64_t> lag;
  std::int64_t changes = 0;
  MonoTime first_change{};
  for (const RouteRecord& r : h.routes) {
    if (!is_namesrv(r.observer)) continue;
    for (const auto& [g, now] : r.groups) {
      auto [prev, fresh] = last.try_emplace({r.observer, r.topic, g}, now);
      if (fresh) continue;
      const RouteGroup before = prev->second;
      prev->second = now;
      if (before.write_queues == now.write_queues && before.read_queues == now.read_queues) continue;
      if (changes++ == 0) first_change = r.at;
      // Every client whose route of the topic named the group before the change, and whether it
      // shows the new counts: a client may already have them (a restarted NameServer learns a
      // change the other NameServer served long ago: nothing for the client to follow).
      std::map<std::string, bool> follows;  // client -> caught up
      auto shows = [&](const RouteGroup& rg) { return rg.write_queues == now.write_queues && rg.read_queues == now.read_queues; };
      for (const RouteRecord& c : h.routes) {
        if (is_namesrv(c.observer) || c.topic != r.topic) continue;
        auto cg = c.groups.find(g);
        if (c.at <= r.at) {
          if (cg != c.groups.end()) {
            follows[c.observer] = shows(cg->second);
          } else {
            follows.erase(c.observer);
          }
          continue;
        }
        auto f = follows.find(c.observer);
        if (f == follows.end() || f->second || cg == c.groups.end()) continue;
        if (shows(cg->second)) {
          f->second = true;
          lag = std::max(lag.value_or(0), ms_between(r.at, c.at));
        }
      }
      for (const auto& [client, caught_up] : follows) {
        if (!caught_up) {
          v.violation(fmt::format("{}'s route of {} never showed {} with {} write queues ({} changed it at {} ms)", client, r.topic, g,
                                  now.write_queues, r.observer, ms_of(r.at)),
                      r.at);
        }
      }
    }
  }
  if (changes == 0) return;
  v.figures["queue_changes"] = changes;
  judge(v, "client_queue_lag_ms", lag, b.client_route_within_ms, "no client used the topic", first_change);
}

}  // namespace

Verdict check_route_staleness(const History& h, const RouteStalenessBounds& b) {
  Verdict v;
  v.name = "route_staleness";
  if (std::optional<Outage> out = outage_of(h, b.group)) {
    v.figures["fault_at_ms"] = ms_of(out->from);
    judge_outage(h, b, *out, v);
  }
  judge_queue_changes(h, b, v);
  if (v.figures.empty() && v.violations == 0) {
    v.violation(fmt::format("nothing to judge: {}'s master never went dark and no queue count of it changed", b.group));
  }
  v.passed = v.violations == 0;
  return v;
}

namespace {
constexpr Duration kHour = std::chrono::hours(1);
}  // namespace

CheckerSpec route_staleness_checker() {
  return CheckerSpec{
      "route_staleness",
      "a broker goes silent (or a topic's queues change): when the NameServers drop it and when every client's "
      "route follows",
      false,
      {
          {.name = "broker", .default_value = std::string(), .story = "the broker group that goes silent (required)",
           .names_group = true},
          {.name = "namesrv_drop_within", .default_value = Duration(std::chrono::seconds(130)),
           .story = "from its last registration until every NameServer dropped it (120 s expiry + one 10 s scan)",
           .max_duration = kHour},
          {.name = "client_route_within", .default_value = Duration(std::chrono::seconds(30)),
           .story = "from the NameServers' change until every client's route shows it (one poll)", .max_duration = kHour},
      },
      Record::sends | Record::events | Record::routes | Record::registrations,
      [](const History& h, const OptionValues& o) {
        return check_route_staleness(h, RouteStalenessBounds{option<std::string>(o, "broker"), option_ms(o, "namesrv_drop_within"),
                                                             option_ms(o, "client_route_within")});
      }};
}

}  // namespace ferry::sim::check
