#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "sim/scenario/duration_text.h"
#include "sim/scenario/fault_registry.h"
#include "sim/scenario/parse_options.h"
#include "sim/scenario/parse_sections.h"
#include "sim/scenario/target_alias.h"

namespace ferry::sim::scenario {

namespace {

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
    if (is_target_alias(n)) {
      if (Status ok = check_target_alias(n, s); !ok.ok()) r.fail(key, ok.error().detail);
      continue;
    }
    r.fail(key, fmt::format("\"{}\" is not a node of this scenario (nodes: {})", n, fmt::join(known, ", ")));
  }
}

void parse_entry(TableReader& r, const Scenario& s, const std::set<std::string>& nodes, FaultEntry& f) {
  f.line = r.line();
  if (!r.has("at")) r.fail("at", "every fault needs its moment (at = \"20s\")");
  r.read_duration("at", f.at, Duration{}, kDurationMax);
  const FaultRegistry& registry = fault_actions();
  std::string action;
  r.read("action", action);
  const FaultActionSpec* spec = registry.find(action);
  if (spec == nullptr) {
    std::vector<std::string_view> all;
    for (const FaultActionSpec& a : registry.all()) all.push_back(a.name);
    const std::string names = fmt::format("{}", fmt::join(all, ", "));
    r.fail("action", action.empty() ? "every fault needs an action (" + names + ")"
                                    : fmt::format("\"{}\" is not one of {}", action, names));
    for (std::string_view k : {"target", "peers", "duration"}) r.known(k);
    for (std::string_view k : fault_action_keys()) r.known(k);
    r.finish();
    return;
  }
  f.action = spec->name;
  auto refuse_unless = [&](bool allowed, std::string_view key) {
    if (r.has(key) && !allowed) r.fail(key, fmt::format("not used by action {}", action));
    r.known(key);
  };
  if (spec->targets) {
    r.read_strings("target", f.targets);
    if (f.targets.empty()) r.fail("target", fmt::format("action {} needs a target", action));
    check_nodes(r, "target", f.targets, nodes, s, f.at);
  } else {
    refuse_unless(false, "target");
  }
  if (spec->peers) {
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
  if (spec->duration) {
    Duration d{};
    if (r.has("duration")) {
      r.read_duration("duration", d, spec->duration_min, kDurationMax);
      f.duration = d;
    }
  } else {
    refuse_unless(false, "duration");
  }
  f.params = read_options(r, spec->keys, s, [&](const OptionSpec& o) { return fmt::format("{} needs {}", action, o.story); });
  for (std::string_view k : fault_action_keys()) {
    const bool takes = std::any_of(spec->keys.begin(), spec->keys.end(), [&](const OptionSpec& o) { return o.name == k; });
    if (!takes) refuse_unless(false, k);
  }
  if (spec->validate) spec->validate(FaultCheck{r, s, nodes, f});
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
