#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "sim/scenario/duration_text.h"
#include "sim/scenario/parse_sections.h"

namespace ferry::sim::scenario {

namespace {

bool is_slave(const Scenario& s, const std::string& node) {
  for (const cluster::BrokerGroupSpec& g : s.cluster.brokers) {
    for (std::size_t k = 1; k <= g.slaves; ++k) {
      if (node == fmt::format("{}-s{}", g.name, k)) return true;
    }
  }
  return false;
}

bool is_master(const Scenario& s, const std::string& node) {
  for (const cluster::BrokerGroupSpec& g : s.cluster.brokers) {
    if (node == g.name) return true;
  }
  return false;
}

// A client node exists from its start_at on: a fault before that has nothing to hurt.
std::optional<Duration> client_start(const Scenario& s, const std::string& node) {
  for (const ProducerScenario& p : s.producers) {
    if (p.node == node) return p.start_at;
  }
  for (const ConsumerScenario& c : s.consumers) {
    if (c.node == node) return c.start_at;
  }
  return std::nullopt;
}

void check_nodes(TableReader& r, std::string_view key, const std::vector<std::string>& nodes,
                 const std::set<std::string>& known, const Scenario& s, Duration at) {
  for (const std::string& n : nodes) {
    const auto start = client_start(s, n);
    if (start && *start > at) {
      r.fail(key, fmt::format("\"{}\" starts at {}, after this fault ({})", n, format_duration(*start), format_duration(at)));
    }
    if (known.count(n) > 0) continue;
    r.fail(key, fmt::format("\"{}\" is not a node of this scenario (nodes: {})", n, fmt::join(known, ", ")));
  }
}

void parse_entry(TableReader& r, const Scenario& s, const std::set<std::string>& nodes, FaultEntry& f) {
  f.line = r.line();
  if (!r.has("at")) r.fail("at", "every fault needs its moment (at = \"20s\")");
  r.read_duration("at", f.at, Duration{}, kDurationMax);
  std::string action;
  r.read("action", action);
  const auto parsed = parse_fault_action(action);
  if (!parsed) {
    std::vector<std::string_view> all;
    for (std::uint8_t i = 0; i <= kFaultActionMax; ++i) all.push_back(fault_action_name(static_cast<FaultAction>(i)));
    const std::string names = fmt::format("{}", fmt::join(all, ", "));
    r.fail("action", action.empty() ? "every fault needs an action (" + names + ")"
                                    : fmt::format("\"{}\" is not one of {}", action, names));
    r.known("target");
    r.known("peers");
    r.known("duration");
    for (const char* k : {"kind", "wipe", "latency", "skew", "free_bytes", "role", "topic", "queues"}) r.known(k);
    r.finish();
    return;
  }
  f.action = *parsed;
  const ActionKeys rules = action_keys(f.action);
  auto refuse_unless = [&](bool allowed, std::string_view key) {
    if (r.has(key) && !allowed) r.fail(key, fmt::format("not used by action {}", action));
    r.known(key);
  };
  if (rules.targets) {
    r.read_strings("target", f.targets);
    if (f.targets.empty()) r.fail("target", fmt::format("action {} needs a target", action));
    check_nodes(r, "target", f.targets, nodes, s, f.at);
  } else {
    refuse_unless(false, "target");
  }
  if (rules.peers) {
    r.read_strings("peers", f.peers);
    if (f.peers.empty()) r.fail("peers", fmt::format("action {} needs peers", action));
    check_nodes(r, "peers", f.peers, nodes, s, f.at);
    for (const std::string& t : f.targets) {
      if (std::find(f.peers.begin(), f.peers.end(), t) != f.peers.end()) {
        r.fail("peers", fmt::format("\"{}\" is both a target and a peer", t));
      }
    }
  } else {
    refuse_unless(false, "peers");
  }
  if (rules.duration) {
    Duration d{};
    if (r.has("duration")) {
      r.read_duration("duration", d, f.action == FaultAction::restart ? Duration{} : std::chrono::milliseconds(1),
                      kDurationMax);
      f.duration = d;
    }
  } else {
    refuse_unless(false, "duration");
  }
  if (action_takes(rules, "kind")) r.read_enum("kind", f.kind, crash_kind_names());
  refuse_unless(action_takes(rules, "kind"), "kind");
  if (action_takes(rules, "wipe")) r.read("wipe", f.wipe);
  refuse_unless(action_takes(rules, "wipe"), "wipe");
  if (action_takes(rules, "latency")) {
    if (!r.has("latency")) r.fail("latency", fmt::format("{} needs the extra latency (latency = \"500ms\")", action));
    r.read_duration("latency", f.latency, std::chrono::microseconds(1), std::chrono::minutes(10));
  }
  refuse_unless(action_takes(rules, "latency"), "latency");
  if (action_takes(rules, "skew")) {
    if (!r.has("skew")) r.fail("skew", "skew_clock needs the jump (skew = \"-5s\" or \"+2m\")");
    Duration skew{};
    r.read_duration("skew", skew, -kDurationMax, kDurationMax, true);
    if (skew % std::chrono::milliseconds(1) != Duration{}) {
      r.fail("skew", "a wall clock jumps by whole milliseconds");
    }
    f.skew_ms = to_ms(skew);
  }
  refuse_unless(action_takes(rules, "skew"), "skew");
  if (action_takes(rules, "free_bytes")) r.read_int("free_bytes", f.free_bytes, 0, std::int64_t{1} << 40);
  refuse_unless(action_takes(rules, "free_bytes"), "free_bytes");
  if (action_takes(rules, "role")) {
    broker::BrokerRole role{};
    if (r.has("role")) {
      r.read_enum("role", role, master_role_names());
      f.role = role;
    }
    for (const std::string& t : f.targets) {
      if (nodes.count(t) > 0 && !is_slave(s, t)) {
        r.fail("target", fmt::format("\"{}\" is not a slave (slaves are named like broker-a-s1)", t));
      }
    }
  }
  refuse_unless(action_takes(rules, "role"), "role");
  if (action_takes(rules, "topic")) {
    r.read("topic", f.topic);
    const bool known = std::any_of(s.cluster.topics.begin(), s.cluster.topics.end(),
                                   [&](const cluster::TopicSpec& t) { return t.name == f.topic; });
    if (!known) r.fail("topic", fmt::format("\"{}\" is not a topic of the scenario ([[topics]])", f.topic));
    if (!r.has("queues")) r.fail("queues", "update_topic needs the new queue count (queues = 8)");
    r.read_int("queues", f.queues, 1, kQueuesMax);
    for (const std::string& t : f.targets) {
      if (nodes.count(t) > 0 && !is_master(s, t)) {
        r.fail("target", fmt::format("\"{}\" is not a broker group's master (named like broker-a)", t));
      }
    }
  }
  refuse_unless(action_takes(rules, "topic"), "topic");
  refuse_unless(action_takes(rules, "queues"), "queues");
  r.finish();
}

}  // namespace

void parse_faults(TableReader& top, Diagnostics& diag, Scenario& out) {
  const toml::array* a = top.tables("faults", kFaultsMax);
  if (a == nullptr) return;
  std::set<std::string> nodes;
  for (const std::string& n : out.node_names()) nodes.insert(n);
  for (std::size_t i = 0; i < a->size(); ++i) {
    TableReader r(diag, *a->get(i)->as_table(), fmt::format("faults[{}]", i));
    FaultEntry f;
    parse_entry(r, out, nodes, f);
    out.faults.push_back(std::move(f));
  }
}

}  // namespace ferry::sim::scenario
