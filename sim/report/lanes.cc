#include "sim/report/lanes.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>
#include <utility>

namespace ferry::sim::report {

namespace {

const std::vector<std::string>& send_series() {
  static const std::vector<std::string> s = {"ok", "not durable", "failed", "unknown"};
  return s;
}

const std::vector<std::string>& consume_series() {
  static const std::vector<std::string> s = {"first", "again", "corrupt"};
  return s;
}

std::size_t series_of(sim::SendOutcome o) {
  switch (o) {
    case sim::SendOutcome::ok: return 0;
    case sim::SendOutcome::stored_not_durable: return 1;
    case sim::SendOutcome::failed: return 2;
    case sim::SendOutcome::unknown: return 3;
  }
  return 3;
}

// The group a failed or unknown send's error names last (the client lists the brokers it tried
// in order: "brokers tried: broker-a, broker-b"): the latest occurrence wins, and of two names
// found at the same place the longer ("broker-ab" over "broker-a"). "" for none.
std::string group_named_in(const std::string& detail, const std::set<std::string>& groups) {
  std::string best;
  std::size_t best_at = 0;
  for (const std::string& g : groups) {
    const std::size_t at = detail.rfind(g);
    if (at == std::string::npos) continue;
    if (best.empty() || at > best_at || (at == best_at && g.size() > best.size())) {
      best = g;
      best_at = at;
    }
  }
  return best;
}

// The broker group of a node: the group itself ("broker-a") or one of its slaves ("broker-a-s1").
bool node_of_group(const std::string& node, const std::string& group) {
  if (node == group) return true;
  return node.size() > group.size() + 2 && node.compare(0, group.size(), group) == 0 &&
         node.compare(group.size(), 2, "-s") == 0;
}

std::set<std::string> with_named(const std::vector<std::string>& named, std::set<std::string> seen) {
  for (const std::string& n : named) seen.erase(n);
  return seen;
}

}  // namespace

std::int64_t ms_since(MonoTime origin, MonoTime t) { return to_ms(t - origin); }

void add_send_lanes(Timeline& t, const sim::History& h, MonoTime origin, const std::vector<std::string>& groups) {
  std::set<std::string> seen;
  for (const sim::SendRecord& s : h.sends) {
    if (!s.queue.broker_name.empty()) seen.insert(s.queue.broker_name);
  }
  std::set<std::string> all(groups.begin(), groups.end());
  all.insert(seen.begin(), seen.end());
  for (const std::string& g : groups) t.lane(kLaneBroker, g, send_series());
  for (const std::string& g : with_named(groups, seen)) t.lane(kLaneBroker, g, send_series());

  std::map<int, std::pair<std::int64_t, std::int64_t>> stored_lost;  // lane -> (stored, failed or unknown)
  for (const sim::SendRecord& s : h.sends) {
    const std::size_t series = series_of(s.outcome);
    std::string group = s.queue.broker_name;
    if (group.empty()) group = group_named_in(s.detail, all);
    const int lane = group.empty() ? t.lane(kLaneUnplaced, "unplaced", send_series()) : t.lane(kLaneBroker, group, send_series());
    const MonoTime at = s.done_at == MonoTime{} ? s.sent_at : s.done_at;  // still in flight at the end: its start
    t.count(lane, ms_since(origin, at), series);
    auto& [stored, lost] = stored_lost[lane];
    (series <= 1 ? stored : lost) += 1;
  }
  for (std::size_t i = 0; i < t.lanes().size(); ++i) {
    const Lane& l = t.lanes()[i];
    if (l.kind != kLaneBroker && l.kind != kLaneUnplaced) continue;
    const auto [stored, lost] = stored_lost[static_cast<int>(i)];
    t.set_note(static_cast<int>(i), fmt::format("{} stored, {} failed/unknown", stored, lost));
  }
}

void add_consume_lanes(Timeline& t, const sim::History& h, MonoTime origin, const std::vector<std::string>& consumers) {
  std::set<std::string> seen;
  for (const sim::ConsumeRecord& c : h.consumes) seen.insert(c.consumer);
  for (const std::string& c : consumers) t.lane(kLaneConsumer, c, consume_series());
  for (const std::string& c : with_named(consumers, seen)) t.lane(kLaneConsumer, c, consume_series());

  // What each group has seen, to tell a first delivery from a redelivery. Bounded by the history.
  std::set<std::tuple<std::string, std::string, std::uint64_t>> delivered;
  std::map<int, std::pair<std::int64_t, std::int64_t>> totals;  // lane -> (deliveries, again)
  for (const sim::ConsumeRecord& c : h.consumes) {
    std::size_t series = 2;
    if (c.intact) series = delivered.emplace(c.group, c.producer, c.seq).second ? 0 : 1;
    const int lane = t.lane(kLaneConsumer, c.consumer, consume_series());
    t.count(lane, ms_since(origin, c.at), series);
    auto& [all, again] = totals[lane];
    ++all;
    again += series == 1 ? 1 : 0;
  }
  for (std::size_t i = 0; i < t.lanes().size(); ++i) {
    if (t.lanes()[i].kind != kLaneConsumer) continue;
    const auto [all, again] = totals[static_cast<int>(i)];
    t.set_note(static_cast<int>(i), fmt::format("{} deliveries, {} again", all, again));
  }
}

void add_event_marks(Timeline& t, const sim::History& h, MonoTime origin) {
  for (const sim::Event& e : h.events) {
    int lane = t.find(kLaneConsumer, e.target);
    for (std::size_t i = 0; lane < 0 && i < t.lanes().size(); ++i) {
      if (t.lanes()[i].kind == kLaneBroker && node_of_group(e.target, t.lanes()[i].name)) lane = static_cast<int>(i);
    }
    if (lane < 0) lane = t.lane(kLaneEvents, "other nodes");
    const std::string text = e.target.empty() || e.detail.find(e.target) != std::string::npos
                                 ? e.detail
                                 : fmt::format("{}: {}", e.target, e.detail);
    t.mark(lane, ms_since(origin, e.at), sim::event_kind_name(e.kind), text);
  }
}

void add_route_marks(Timeline& t, const sim::History& h, MonoTime origin) {
  std::set<std::pair<std::string, std::string>> seen;  // (observer, topic) with a first route
  int lane = -1;
  for (const sim::RouteRecord& r : h.routes) {
    if (seen.emplace(r.observer, r.topic).second) continue;  // what it showed from the start
    if (lane < 0) lane = t.lane(kLaneRoutes, "route changes");
    std::string groups;
    for (const auto& [g, q] : r.groups) {
      if (!groups.empty()) groups += ", ";
      groups += q.master ? fmt::format("{} {}w/{}r", g, q.write_queues, q.read_queues) : fmt::format("{} (no master)", g);
    }
    t.mark(lane, ms_since(origin, r.at), "route", fmt::format("{}: {} -> {}", r.observer, r.topic, groups.empty() ? "no route" : groups));
  }
}

namespace {

// The samples of `metric`, by node, in time order.
std::map<std::string, std::vector<const sim::MetricSample*>> samples_by_node(const sim::History& h, std::string_view metric) {
  std::map<std::string, std::vector<const sim::MetricSample*>> out;
  for (const sim::MetricSample& m : h.metric_samples) {
    if (m.metric == metric) out[m.node].push_back(&m);
  }
  return out;
}

// A counter summed over the nodes: each increase spread evenly over the columns since the node's
// previous sample (a sample a second, columns of 250 ms and more); a node that restarted counts
// from 0 again: a drop is a restart, its new value the increase.
void add_counter_lane(Timeline& t, const sim::History& h, MonoTime origin, std::string_view metric, std::string_view name,
                      std::string_view series, std::string_view unit) {
  struct Increase {
    std::int64_t from_ms, to_ms, n;
  };
  std::int64_t total = 0;
  std::vector<Increase> increases;
  for (const auto& [node, samples] : samples_by_node(h, metric)) {
    double last = 0;
    std::int64_t last_ms = 0;
    for (const sim::MetricSample* s : samples) {
      const double inc = s->value >= last ? s->value - last : s->value;
      const std::int64_t at = ms_since(origin, s->at);
      last = s->value;
      const std::int64_t from = std::max(last_ms, at - 1500);  // at most about a sample interval back
      last_ms = at;
      if (inc <= 0) continue;
      increases.push_back(Increase{from, at, static_cast<std::int64_t>(inc)});
      total += static_cast<std::int64_t>(inc);
    }
  }
  if (total == 0) return;
  const int lane = t.lane(kLaneMetric, name, {std::string(series)});
  const std::int64_t col = t.column_ms();
  for (const Increase& i : increases) {
    // The columns after `from` up to the one holding `to`, each its share (the rest in the last).
    const std::int64_t first = std::min(i.from_ms / col + (i.from_ms < i.to_ms ? 1 : 0), i.to_ms / col);
    const std::int64_t columns = i.to_ms / col - first + 1;
    const std::int64_t share = i.n / columns;
    for (std::int64_t c = first; c <= i.to_ms / col; ++c) {
      t.add(lane, c * col, 0, c == i.to_ms / col ? i.n - share * (columns - 1) : share);
    }
  }
  t.set_note(lane, fmt::format("{} {} in all", total, unit));
}

// A gauge per node: the value it held from each sample to the next (or the end).
void add_gauge_lanes(Timeline& t, const sim::History& h, MonoTime origin, std::string_view metric, std::string_view what,
                     std::string_view series, std::string_view unit) {
  for (const auto& [node, samples] : samples_by_node(h, metric)) {
    double most = 0;
    for (const sim::MetricSample* s : samples) most = std::max(most, s->value);
    if (most <= 0) continue;
    const int lane = t.lane(kLaneMetric, fmt::format("{} {}", what, node), {std::string(series)});
    for (std::size_t i = 0; i < samples.size(); ++i) {
      const std::int64_t from = ms_since(origin, samples[i]->at);
      const std::int64_t to = i + 1 < samples.size() ? ms_since(origin, samples[i + 1]->at) - 1 : t.span_ms();
      t.hold(lane, from, to, 0, static_cast<std::int64_t>(samples[i]->value));
    }
    t.set_note(lane, fmt::format("at most {} {}", static_cast<std::int64_t>(most), unit));
  }
}

}  // namespace

void add_metric_lanes(Timeline& t, const sim::History& h, MonoTime origin) {
  add_counter_lane(t, h, origin, "rocketmq_messages_in_total", "produced", "produced", "messages");
  add_counter_lane(t, h, origin, "rocketmq_messages_out_total", "pulled", "pulled", "messages");
  add_counter_lane(t, h, origin, "ferry_requests_refused_total", "refused requests", "refused", "requests");
  add_gauge_lanes(t, h, origin, "rocketmq_consumer_lag_messages", "lag", "lag", "messages");
  add_gauge_lanes(t, h, origin, "ferry_ha_slave_lag_bytes", "replication lag", "replication-lag", "bytes");
  add_gauge_lanes(t, h, origin, "rocketmq_storage_flush_behind_bytes", "flush behind", "flush-behind", "bytes");
}

}  // namespace ferry::sim::report
