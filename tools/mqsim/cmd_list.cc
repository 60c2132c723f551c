// mqsim list [DIR]: every scenario file in DIR (default: scenarios) with its one-line story.
// mqsim list --checkers / --faults: what this build's registries hold (sim/check/registry.h,
// sim/scenario/fault_registry.h): every checker with the records it reads and, for a named check,
// its options; every fault action with the keys it takes.
// mqsim list --real [DIR]: which scenario files run on real processes (`mqsim run --real`), and
// why each of the others does not (sim/real/real_cluster.h, real_refusals).
#include <fmt/format.h>

#include <cstdio>
#include <string>
#include <variant>

#include "sim/check/registry.h"
#include "sim/io/scenario_file.h"
#include "sim/real/real_cluster.h"
#include "sim/scenario/duration_text.h"
#include "sim/scenario/fault_registry.h"
#include "tools/mqsim/command.h"

namespace ferry::mqsim {

namespace {

constexpr const char* kUsage =
    "usage: mqsim list [DIR]          the scenario files in DIR (default: scenarios) and their stories\n"
    "       mqsim list --checkers     every checker: what it judges, the records it reads, a named check's options\n"
    "       mqsim list --faults       every fault action of [[faults]]: the keys it takes\n"
    "       mqsim list --real [DIR]   which scenario files run on real processes (mqsim run --real), why not the others\n";

std::string option_line(const sim::OptionSpec& o) {
  std::string def;
  if (const auto* b = std::get_if<bool>(&o.default_value)) def = *b ? "true" : "false";
  if (const auto* i = std::get_if<std::int64_t>(&o.default_value)) def = std::to_string(*i);
  if (const auto* d = std::get_if<Duration>(&o.default_value)) def = fmt::format("\"{}\"", sim::scenario::format_duration(*d));
  if (const auto* str = std::get_if<std::string>(&o.default_value)) def = fmt::format("\"{}\"", *str);
  if (o.required || (o.names_group && !o.optional)) def = "required";
  return fmt::format("    {:<30} {:<10} {}\n", o.name, def, o.story);
}

int list_checkers() {
  for (const sim::check::CheckerSpec& c : sim::check::checkers().all()) {
    const std::string kind = c.always ? std::string("judges every history") : fmt::format("named: [checks.{}]", c.name);
    std::fputs(fmt::format("{:<22} {}\n", c.name, kind).c_str(), stdout);
    std::fputs(fmt::format("    {}\n    reads: {}\n", c.story, sim::check::records_text(c.needs)).c_str(), stdout);
    for (const sim::OptionSpec& o : c.options) std::fputs(option_line(o).c_str(), stdout);
  }
  return kExitOk;
}

int list_faults() {
  for (const sim::scenario::FaultActionSpec& a : sim::scenario::fault_actions().all()) {
    std::string takes = a.targets ? "target" : "(no target)";
    if (a.peers) takes += ", peers";
    if (a.duration) takes += ", duration";
    for (const sim::OptionSpec& o : a.keys) takes += fmt::format(", {}", o.name);
    std::fputs(fmt::format("{:<18} {}\n    takes: {}\n", a.name, a.story, takes).c_str(), stdout);
    std::fputs(fmt::format("    real: {}\n", a.real_apply ? "yes" : a.real_refusal).c_str(), stdout);
    for (const sim::OptionSpec& o : a.keys) std::fputs(option_line(o).c_str(), stdout);
  }
  return kExitOk;
}

}  // namespace

int run_list(const std::vector<std::string>& args) {
  if (args.size() == 1 && (args[0] == "--help" || args[0] == "-h")) {
    std::fputs(kUsage, stdout);
    return kExitOk;
  }
  if (args.size() == 1 && args[0] == "--checkers") return list_checkers();
  if (args.size() == 1 && args[0] == "--faults") return list_faults();
  std::vector<std::string> rest = args;
  const bool real = !rest.empty() && rest[0] == "--real";
  if (real) rest.erase(rest.begin());
  if (rest.size() > 1 || (rest.size() == 1 && !rest[0].empty() && rest[0][0] == '-')) {
    std::fputs(kUsage, stderr);
    return kExitUsage;
  }
  const std::string dir = rest.empty() ? "scenarios" : rest[0];
  auto files = sim::io::scenario_files(dir);
  if (!files.ok()) {
    std::fputs(fmt::format("mqsim list: {}\n", files.error().to_string()).c_str(), stderr);
    return kExitFailed;
  }
  int bad = 0;
  for (const std::string& f : *files) {
    auto s = sim::io::load_scenario(f);
    if (!s.ok()) {
      std::fputs(fmt::format("{}: {}\n", f, s.error().detail).c_str(), stdout);
      ++bad;
      continue;
    }
    if (!real) {
      std::fputs(fmt::format("{:<28} {}\n", s->name, s->story).c_str(), stdout);
      continue;
    }
    const std::vector<std::string> why = sim::real::real_refusals(*s);
    std::fputs(fmt::format("{:<32} {}\n", s->name, why.empty() ? "runs for real" : "simulator only:").c_str(), stdout);
    for (const std::string& w : why) std::fputs(fmt::format("    {}\n", w).c_str(), stdout);
  }
  return bad == 0 ? kExitOk : kExitFailed;
}

}  // namespace ferry::mqsim
