#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/scenario/checker_catalog.h"
#include "sim/scenario/duration_text.h"
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

void parse_named_check(TableReader& r, const CheckerInfo& info, const Scenario& s, NamedCheck& out) {
  out.name = std::string(info.name);
  out.line = r.line();
  for (const CheckOptionInfo& o : info.options) {
    CheckValue v = o.default_value;
    const std::string key(o.name);
    if (auto* b = std::get_if<bool>(&v)) {
      r.read(key, *b);
    } else if (auto* i = std::get_if<std::int64_t>(&v)) {
      r.read(key, *i, o.min, o.max);
    } else if (auto* d = std::get_if<Duration>(&v)) {
      r.read_duration(key, *d, std::chrono::milliseconds(o.min), std::chrono::milliseconds(o.max));
    } else if (auto* str = std::get_if<std::string>(&v)) {
      r.read(key, *str);
      if (o.names_group) {
        if (str->empty() && !o.optional) r.fail(key, fmt::format("check {} needs {}: {}", info.name, key, o.story));
        bool found = str->empty();
        for (const cluster::BrokerGroupSpec& g : s.cluster.brokers) found = found || g.name == *str;
        if (!found) r.fail(key, fmt::format("\"{}\" is not a broker group of the cluster", *str));
      }
    }
    out.options.emplace(key, std::move(v));
  }
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
  for (const CheckerInfo& info : checker_catalog()) {
    if (!r.has(info.name)) continue;
    const toml::table* t = r.table(info.name);
    if (t == nullptr) continue;
    TableReader sub(diag, *t, r.path(info.name));
    NamedCheck check;
    parse_named_check(sub, info, s, check);
    c.named.push_back(std::move(check));
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
}

}  // namespace ferry::sim::scenario
