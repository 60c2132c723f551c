#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

#include "sim/check/registry.h"
#include "sim/scenario/duration_text.h"
#include "sim/scenario/parse_options.h"
#include "sim/scenario/parse_sections.h"

namespace ferry::sim::scenario {

namespace {


void parse_liveness(TableReader& r, LivenessSettings& l) {
  r.read("enabled", l.enabled);
  r.read_duration("bound", l.bound, std::chrono::seconds(1), std::chrono::hours(24));
  std::vector<std::string> names;
  r.read_strings("require", names);
  if (!r.has("require")) return;
  const NameTable<Requirement>& table = requirement_names();
  l.require.clear();
  for (const std::string& n : names) {
    bool found = false;
    for (const auto& [name, value] : table) {
      if (name == n) {
        l.require.push_back(value);
        found = true;
      }
    }
    if (!found) {
      std::vector<std::string_view> allowed;
      for (const auto& entry : table) allowed.push_back(entry.first);
      r.fail("require", fmt::format("\"{}\" is not one of {}", n, fmt::join(allowed, ", ")));
    }
  }
}

void parse_named_check(TableReader& r, const check::CheckerSpec& info, const Scenario& s, NamedCheck& out) {
  out.name = info.name;
  out.line = r.line();
  out.options = read_options(r, info.options, s, [&](const OptionSpec& o) {
    return fmt::format("check {} needs {}: {}", info.name, o.name, o.story);
  });
  r.finish();
}

void parse_checks(TableReader& r, Diagnostics& diag, const Scenario& s, CheckSettings& c) {
  r.read_enum("lost", c.lost, lost_mode_names());
  if (r.has("duplicates_max")) {
    std::int64_t n = 0;
    r.read("duplicates_max", n, 0, 1'000'000'000);
    c.duplicates_max = n;
  }
  r.read("corrupt", c.corrupt);
  if (r.has("per_key_order")) {
    bool on = false;
    r.read("per_key_order", on);
    c.per_key_order = on;
  }
  r.read("offsets_dense", c.offsets_dense);
  r.read("offsets_monotonic", c.offsets_monotonic);
  r.read("routes", c.routes);
  r.read_strings("expected_errors", c.expected_errors);
  for (const check::CheckerSpec& info : check::checkers().all()) {
    if (info.always || !r.has(info.name)) continue;
    const toml::table* t = r.table(info.name);
    if (t == nullptr) continue;
    TableReader sub(diag, *t, r.path(info.name));
    NamedCheck check;
    parse_named_check(sub, info, s, check);
    c.named.push_back(std::move(check));
  }
  r.finish();
}

// [swarm]: after [checks], whose named checks it may name.
void parse_swarm(TableReader& r, SwarmSettings& w, const CheckSettings& c) {
  if (r.has("liveness_bound")) {
    Duration bound{};
    r.read_duration("liveness_bound", bound, std::chrono::seconds(1), std::chrono::hours(24));
    w.liveness_bound = bound;
  }
  r.read_strings("expected_errors", w.expected_errors);
  r.read_strings("figures_only", w.figures_only);
  for (const std::string& name : w.figures_only) {
    const check::CheckerSpec* spec = check::checkers().find(name);
    if (spec != nullptr && spec->always) {
      r.fail("figures_only", fmt::format("\"{}\" is a guarantee every run keeps; only a named check ([checks.NAME]) may be figures only", name));
      continue;
    }
    const bool named = std::any_of(c.named.begin(), c.named.end(), [&](const NamedCheck& n) { return n.name == name; });
    if (!named) r.fail("figures_only", fmt::format("\"{}\" is not a check of this file (no [checks.{}])", name, name));
  }
  r.finish();
}

}  // namespace

void parse_settings(TableReader& top, Diagnostics& diag, Scenario& out) {
  if (const toml::table* t = top.table("run")) {
    TableReader r(diag, *t, "run");
    r.read_duration("length", out.run.length, std::chrono::seconds(1), kDurationMax);
    r.read("swarm", out.run.swarm);
    r.finish();
  }
  for (std::size_t i = 0; i < out.faults.size(); ++i) {
    const FaultEntry& f = out.faults[i];
    if (f.at > out.run.length) {
      diag.add(f.line, fmt::format("faults[{}].at", i), fmt::format("{} is after the end of the run (run.length = {})", format_duration(f.at),
                                                format_duration(out.run.length)));
    }
  }
  if (const toml::table* t = top.table("liveness")) {
    TableReader r(diag, *t, "liveness");
    parse_liveness(r, out.liveness);
    r.finish();
  }
  if (const toml::table* t = top.table("checks")) {
    TableReader r(diag, *t, "checks");
    parse_checks(r, diag, out, out.checks);
  }
  if (const toml::table* t = top.table("swarm")) {
    TableReader r(diag, *t, "swarm");
    parse_swarm(r, out.swarm, out.checks);
  }
}

}  // namespace ferry::sim::scenario
