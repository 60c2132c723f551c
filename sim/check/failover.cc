#include "sim/check/failover.h"

#include <fmt/format.h>

#include <map>
#include <optional>
#include <set>

namespace ferry::sim::check {

namespace {

const Event* first_event(const History& h, EventKind kind, const std::string& target, MonoTime after) {
  for (const Event& e : h.events) {
    if (e.kind == kind && e.at >= after && (target.empty() || e.target == target)) return &e;
  }
  return nullptr;
}

const Event* first_promotion_of(const History& h, const std::string& group, MonoTime after) {
  const std::string prefix = group + "-s";  // the group's slaves: "broker-a-s1", ...
  for (const Event& e : h.events) {
    if (e.kind == EventKind::promote && e.at >= after && e.target.compare(0, prefix.size(), prefix) == 0) return &e;
  }
  return nullptr;
}

// Judges one figure against its bound (0: measured only). `figure` unset: not measurable. A
// violation is timed at `since`, the event the figure is measured from.
void judge(Verdict& v, const char* name, std::optional<std::int64_t> figure, std::int64_t bound_ms, const std::string& why_unmeasured,
           MonoTime since) {
  if (figure) v.figures[name] = *figure;
  if (bound_ms <= 0) return;
  if (!figure) {
    v.violation(fmt::format("{}: not measurable ({}), bound {} ms", name, why_unmeasured, bound_ms), since);
  } else if (*figure > bound_ms) {
    v.violation(fmt::format("{} = {} ms exceeds the bound of {} ms", name, *figure, bound_ms), since);
  }
}

bool node_of_group(const std::string& node, const std::string& group) {
  return node == group || node.rfind(group + "-s", 0) == 0;
}

// Controller mode: the first crash of the node the controllers had named master of `group` when
// it crashed (the latest view any controller showed before it). Null without controller views.
const Event* first_master_death(const History& h, const std::string& group) {
  bool controlled = false;
  for (const ControllerViewRecord& r : h.controller_views) controlled = controlled || r.group == group;
  if (!controlled) return nullptr;
  for (const Event& e : h.events) {
    if (e.kind != EventKind::crash || !node_of_group(e.target, group)) continue;
    const ControllerViewRecord* latest = nullptr;
    for (const ControllerViewRecord& r : h.controller_views) {
      if (r.at > e.at) break;
      if (r.group == group && (latest == nullptr || r.master_epoch >= latest->master_epoch)) latest = &r;
    }
    if (latest != nullptr && latest->master == e.target) return &e;
  }
  return nullptr;
}

}  // namespace

Verdict check_failover(const History& h, const FailoverBounds& b) {
  Verdict v;
  v.name = "failover";
  const Event* death = first_master_death(h, b.group);
  if (death == nullptr) death = first_event(h, EventKind::crash, b.group, MonoTime{});
  if (death == nullptr) {
    v.violation(fmt::format("the master of {} never died: no crash event targets node {}", b.group, b.group));
    v.passed = false;
    return v;
  }
  const MonoTime dead_at = death->at;
  const Event* promotion = first_promotion_of(h, b.group, dead_at);
  v.figures["death_at_ms"] = ms_of(dead_at);
  if (promotion != nullptr) v.figures["promotion_at_ms"] = ms_of(promotion->at);
  const MonoTime window_end = promotion != nullptr ? promotion->at : MonoTime::max();

  // Sends: the first success elsewhere after the death; failures in the window.
  std::optional<std::int64_t> resume, writes_again;
  std::int64_t failed = 0;
  for (const SendRecord& s : h.sends) {
    if (s.sent_at < dead_at) continue;
    if (s.sent_at < window_end && s.outcome != SendOutcome::ok) ++failed;
    if (s.outcome != SendOutcome::ok) continue;
    const std::int64_t after_death = to_ms(s.done_at - dead_at);
    if (s.queue.broker_name != b.group && (!resume || after_death < *resume)) resume = after_death;
    if (promotion != nullptr && s.sent_at >= promotion->at && s.queue.broker_name == b.group) {
      const std::int64_t after = to_ms(s.done_at - promotion->at);
      if (!writes_again || after < *writes_again) writes_again = after;
    }
  }
  v.figures["failed_sends"] = failed;
  judge(v, "sends_resume_ms", resume, b.sends_resume_within_ms, "no send succeeded on another group after the death", dead_at);

  // Controller mode: the election, and the group's own writes again.
  std::optional<std::int64_t> elected, group_writes;
  for (const ControllerViewRecord& r : h.controller_views) {
    if (r.at < dead_at || r.group != b.group || r.master.empty() || r.master == death->target) continue;
    elected = to_ms(r.at - dead_at);
    v.figures["elected_epoch"] = r.master_epoch;
    break;
  }
  for (const SendRecord& s : h.sends) {
    if (s.sent_at < dead_at || s.outcome != SendOutcome::ok || s.queue.broker_name != b.group) continue;
    const std::int64_t after = to_ms(s.done_at - dead_at);
    if (!group_writes || after < *group_writes) group_writes = after;
  }
  judge(v, "elected_ms", elected, b.elected_within_ms, fmt::format("the controllers named no other master of {}", b.group), dead_at);
  judge(v, "group_writes_ms", group_writes, b.group_writes_within_ms,
        fmt::format("no send started after the death was acknowledged by {}", b.group), dead_at);

  // Consumption: what was left unread at the death, and when the group's messages flowed again.
  std::map<std::string, std::set<std::pair<std::string, std::uint64_t>>> consumed_before;  // group -> messages
  std::optional<std::int64_t> from_slave;
  for (const ConsumeRecord& c : h.consumes) {
    if (c.at < dead_at) {
      if (c.intact) consumed_before[c.group].emplace(c.producer, c.seq);
    } else if (c.at < window_end && c.queue.broker_name == b.group && c.pulled_from > 0 && !from_slave) {
      from_slave = to_ms(c.at - dead_at);
    }
  }
  std::int64_t backlog = 0;
  for (const SendRecord& s : h.sends) {
    if (!s.owed() || s.queue.broker_name != b.group || s.done_at > dead_at) continue;
    for (const auto& [group, topics] : h.subscriptions) {
      if (topics.count(s.topic) == 0) continue;
      if (consumed_before[group].count({s.producer, s.seq}) == 0) {
        ++backlog;
        break;
      }
    }
  }
  v.figures["backlog_at_death"] = backlog;
  judge(v, "consume_from_slave_ms", from_slave, b.consume_from_slave_within_ms,
        backlog == 0 ? fmt::format("nothing of {} was left unread at its death: make the consumers lag", b.group)
                     : fmt::format("{} messages of {} were left unread at its death and none was consumed before {}", backlog,
                                   b.group, promotion != nullptr ? "the promotion" : "the end"),
        dead_at);
  if (promotion != nullptr || b.writes_after_promotion_within_ms > 0) {
    judge(v, "writes_after_promotion_ms", writes_again, b.writes_after_promotion_within_ms,
          promotion == nullptr ? std::string("no slave of the group was promoted")
                               : fmt::format("no send started after the promotion was stored on {}", b.group),
          promotion != nullptr ? promotion->at : dead_at);
  }
  v.passed = v.violations == 0;
  return v;
}

namespace {
constexpr Duration kHour = std::chrono::hours(1);
}  // namespace

CheckerSpec failover_checker() {
  return CheckerSpec{
      "failover",
      "a group's master dies under load: how long until sends succeed on the other groups, until consumers read "
      "from the slave, and until the group takes writes after the operator's promotion",
      false,
      {
          {.name = "group", .default_value = std::string(), .story = "the broker group whose master is killed (required)",
           .names_group = true},
          {.name = "sends_resume_within", .default_value = Duration{},
           .story = "bound on the time until sends succeed again; 0s: measured only", .max_duration = kHour},
          {.name = "consume_from_slave_within", .default_value = Duration{},
           .story = "bound on the time until consumers read the group's messages from its slave; 0s: measured only",
           .max_duration = kHour},
          {.name = "writes_after_promotion_within", .default_value = Duration{},
           .story = "bound on the time from the promotion until the group takes writes; 0s: measured only",
           .max_duration = kHour},
          {.name = "elected_within", .default_value = Duration{},
           .story = "controller mode: bound on the time from the death until a controller names another master; 0s: "
                    "measured only",
           .max_duration = kHour},
          {.name = "group_writes_within", .default_value = Duration{},
           .story = "bound on the time from the death until the group itself acknowledges a send again (controller "
                    "mode: the new master); 0s: measured only",
           .max_duration = kHour},
      },
      Record::sends | Record::consumes | Record::events | Record::subscriptions | Record::controller_views,
      [](const History& h, const OptionValues& o) {
        return check_failover(h, FailoverBounds{option<std::string>(o, "group"), option_ms(o, "sends_resume_within"),
                                                option_ms(o, "consume_from_slave_within"),
                                                option_ms(o, "writes_after_promotion_within"),
                                                option_ms(o, "elected_within"), option_ms(o, "group_writes_within")});
      }};
}

}  // namespace ferry::sim::check
